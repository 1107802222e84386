// Summarise one conformance run for tests/conformance/run.sh.
//
// Reads the suite's frozen requirement sets (requirements/REV.yaml in the
// installed package) and every scenario's checks.json under OUT/REV/, prints
// one row per scenario, and ends with `conformance: N passed, M failed`.
//
// Counted scenarios are the scored ones plus the unscored ones named in
// REQUIRE. A scenario passes when none of its checks is a FAILURE (the suite's
// own rule; WARNING, INFO and SKIPPED do not fail it). A counted scenario with
// no checks.json (the suite crashed in it, or the run timed out) is NO-RUN and
// counts as failed. Scenarios listed in EXPECT still count as failed in the
// closing line; they only decide the exit status (1 only for failures that
// were not expected).
//
// Extension scenarios (EXTENSIONS), which no requirement set holds, are run
// one by one into OUT/extensions/ and counted under the row label
// `extension`.
//
// Inputs come from the environment: OUT, SUITE_PKG, REVISIONS, EXPECT,
// REQUIRE and EXTENSIONS (newline-separated), LABEL, SUMMARY_JSON (optional output path),
// SERVER_NOTE (optional).
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const env = process.env;
const list = (s) => (s ?? '').split('\n').map((x) => x.trim()).filter(Boolean);
const OUT = env.OUT;
const SUITE_PKG = env.SUITE_PKG;
const revisions = list(env.REVISIONS);
const expectEntries = [...new Set(list(env.EXPECT))];
const requireNames = new Set(list(env.REQUIRE));
const extensionNames = [...new Set(list(env.EXTENSIONS))];

// The suite's own YAML parser, resolved from the installed package.
const { parse } = createRequire(join(SUITE_PKG, 'package.json'))('yaml');

// Result folders are named server-<scenario>-<ISO timestamp with - for : and .>.
const STAMP = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function readChecks(dir, scenario) {
  if (!existsSync(dir)) return null;
  // Several runs of one scenario in one folder should not happen (run.sh
  // empties it first); if they do, the newest wins (timestamps sort as text).
  const hits = readdirSync(dir)
    .filter((d) => STAMP.test(d) && d.replace(STAMP, '') === `server-${scenario}`)
    .sort();
  for (const d of hits.reverse()) {
    const file = join(dir, d, 'checks.json');
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        return null;
      }
    }
  }
  return null;
}

const isExpected = (rev, name) => expectEntries.includes(name) || expectEntries.includes(`${rev}:${name}`);
const usedExpect = new Set();
const seenScenarios = new Set();

const pad = (s, n) => String(s).padEnd(n);
const lines = [];
const header = `${pad('revision', 11)}${pad('scenario', 46)}${pad('scoring', 37)}${pad('result', 14)}${pad('ok/fail/warn', 13)}failing checks`;
lines.push(`== conformance: ${env.LABEL ?? ''}`, header, '-'.repeat(header.length));

let passed = 0, failed = 0, expectedFailed = 0, unexpectedFailed = 0;
const xpass = [];
const failures = [];
const perRev = {};

const sets = [...revisions, ...(extensionNames.length ? ['extensions'] : [])];
for (const rev of sets) {
  const req = rev === 'extensions'
    ? { server: extensionNames }
    : parse(readFileSync(join(SUITE_PKG, 'requirements', `${rev}.yaml`), 'utf8'));
  const scored = req.server ?? [];
  const unscored = (req.not_scored ?? []).filter((e) => e.leg === 'server');
  const rows = [
    ...scored.map((name) => ({ name, counted: true, scoring: rev === 'extensions' ? 'extension (required by us)' : 'scored' })),
    ...unscored.map((e) => ({
      name: e.scenario,
      counted: requireNames.has(e.scenario),
      scoring: requireNames.has(e.scenario) ? `required by us (${e.reason})` : `not scored (${e.reason})`,
    })),
  ];
  let rp = 0, rf = 0, rx = 0;
  for (const row of rows) {
    seenScenarios.add(row.name);
    const checks = readChecks(join(OUT, rev), row.name);
    let result, counts = '-', failing = '';
    if (!checks) {
      result = 'NO-RUN';
    } else {
      const n = (s) => checks.filter((c) => c.status === s).length;
      result = n('FAILURE') > 0 ? 'FAIL' : 'PASS';
      counts = `${n('SUCCESS')}/${n('FAILURE')}/${n('WARNING')}`;
      failing = [...new Set(checks.filter((c) => c.status === 'FAILURE').map((c) => c.id ?? c.name))].join(', ');
      if (failing.length > 70) failing = `${failing.slice(0, 67)}...`;
    }
    let shown = result;
    if (row.counted) {
      const expected = isExpected(rev, row.name);
      if (expected) usedExpect.add(expectEntries.includes(row.name) ? row.name : `${rev}:${row.name}`);
      if (result === 'PASS') {
        rp++;
        if (expected) { shown = 'PASS (xpass)'; xpass.push(`${rev}:${row.name}`); }
      } else {
        rf++;
        if (expected) { rx++; shown = `${result} (xfail)`; } else failures.push(`${rev}:${row.name}`);
      }
    }
    lines.push(`${pad(rev, 11)}${pad(row.name, 46)}${pad(row.scoring, 37)}${pad(shown, 14)}${pad(counts, 13)}${failing}`.trimEnd());
  }
  const counted = rows.filter((r) => r.counted).length;
  const rcFile = join(OUT, `${rev}.rc`);
  const rc = existsSync(rcFile) ? readFileSync(rcFile, 'utf8').trim() : '?';
  const notes = [];
  if (rc === '124' || rc === '137') notes.push('the run timed out');
  if (rx > 0) notes.push(`${rx} of the failures expected`);
  lines.push(`${pad(rev, 11)}counted: ${rp} passed, ${rf} failed of ${counted}; suite exit code ${rc}` +
             (notes.length ? ` (${notes.join('; ')})` : ''));
  perRev[rev] = { passed: rp, failed: rf, expected_failures: rx, counted, suite_exit_code: rc };
  passed += rp; failed += rf; expectedFailed += rx;
}
unexpectedFailed = failed - expectedFailed;

lines.push('');
for (const name of requireNames) {
  if (!seenScenarios.has(name)) lines.push(`warning: --require ${name}: no such server scenario in ${revisions.join(', ')}`);
}
for (const e of expectEntries) {
  const [rev, name] = e.includes(':') ? e.split(':') : [null, e];
  if (rev && !revisions.includes(rev)) continue; // about a revision not run now
  if (!usedExpect.has(e)) {
    lines.push(seenScenarios.has(name)
      ? `note: expected-failure entry '${e}' names a scenario that is not counted here`
      : `warning: expected-failure entry '${e}' names no server scenario in ${revisions.join(', ')}`);
  }
}
if (env.SERVER_NOTE) lines.push(`warning: ${env.SERVER_NOTE}`);
if (xpass.length) lines.push(`now passing though listed as expected to fail (remove them from the list): ${xpass.join(', ')}`);
if (expectedFailed) lines.push(`expected failures: ${expectedFailed} (listed as expected to fail for now)`);
if (unexpectedFailed) {
  const shown = failures.slice(0, 12).join(', ') + (failures.length > 12 ? `, and ${failures.length - 12} more` : '');
  lines.push(`unexpected failures: ${unexpectedFailed}: ${shown}`);
}
lines.push(`raw results: ${OUT}`);
lines.push(`conformance: ${passed} passed, ${failed} failed`);
console.log(lines.join('\n'));

if (env.SUMMARY_JSON) {
  writeFileSync(env.SUMMARY_JSON, JSON.stringify({
    label: env.LABEL ?? '', passed, failed, expected_failures: expectedFailed,
    unexpected_failures: unexpectedFailed, unexpected: failures, xpass, revisions: perRev, out: OUT,
  }, null, 2) + '\n');
}
process.exitCode = unexpectedFailed > 0 ? 1 : 0;
