//! JSON written straight into a buffer, byte for byte as `serde_json::to_writer` writes it
//! (compact, the same escapes): the strings, values and maps the wire writer
//! (`jsonrpc::write`) and `ToolResult::structured` write. serde_json looks up every byte of a
//! string in its escape table; here eight bytes are tested at once, and a run that needs no
//! escape (all of a base64 string, nearly all of most text) is copied whole.

use serde_json::{Map, Value};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether JSON needs `b` escaped inside a string: a control character, `"` or `\`.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Eight bytes as one little-endian word (`chunk` holds eight).
fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]))
}

/// The high bit of each byte of `x` that needs an escape. A byte below 0x20, equal to '"' or
/// equal to '\\' sets its high bit. The subtraction's borrow only runs upwards from a byte that
/// matched, so the lowest bit set is a true match, and a word with no match gives 0.
/// Non-ASCII bytes have the high bit set in `x` and are masked off.
fn escape_mask(x: u64) -> u64 {
    let quote = x ^ (ONES * u64::from(b'"'));
    let slash = x ^ (ONES * u64::from(b'\\'));
    (x.wrapping_sub(ONES * 0x20) | quote.wrapping_sub(ONES) | slash.wrapping_sub(ONES)) & !x & HIGH
}

/// Whether a string of at most [`SHORT`] bytes needs no escape: its words tested without a
/// branch per byte, the last one overlapping the one before it (a string under eight bytes is
/// read as two overlapping halves, under four byte by byte).
fn short_is_clean(b: &[u8]) -> bool {
    let n = b.len();
    if n >= 8 {
        let mut m = escape_mask(word(&b[n - 8..]));
        let mut i = 0;
        while i + 8 < n {
            m |= escape_mask(word(&b[i..i + 8]));
            i += 8;
        }
        m == 0
    } else if n >= 4 {
        let half = |c: &[u8]| u64::from(u32::from_le_bytes(c.try_into().unwrap_or([0; 4])));
        escape_mask(half(&b[..4]) | half(&b[n - 4..]) << 32) == 0
    } else {
        !b.iter().any(|&c| needs_escape(c))
    }
}

/// The length up to which a string is tested whole first: keys and most values of structured
/// data, where the block test and the run search cost more than the string.
const SHORT: usize = 32;

/// The index of the first byte at or after `i` that needs an escape, or `bytes.len()`.
fn next_escape(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let m = escape_mask(word(chunk));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && !needs_escape(bytes[i]) {
        i += 1;
    }
    i
}

/// The first 32-byte block at or after `i` that holds a byte to escape (or the last, shorter
/// part). The test has no early exit inside a block, so the compiler does it 16 bytes at a
/// time (SSE2, in every x86-64 build).
fn next_dirty_block(bytes: &[u8], mut i: usize) -> usize {
    while let Some(block) = bytes.get(i..i + 32) {
        let mut any = false;
        for &b in block {
            any |= (b < 0x20) | (b == b'"') | (b == b'\\');
        }
        if any {
            break;
        }
        i += 32;
    }
    i
}

/// Append `bytes[start..at]`: a run of at most 16 bytes by a fixed-size store that is then
/// cut back (a run between two quotes of structured text is a few bytes, and a `memcpy` call
/// for it costs more than its bytes), a longer one whole.
fn copy_run(out: &mut Vec<u8>, bytes: &[u8], start: usize, at: usize) {
    let n = at - start;
    if n <= 16 {
        if let Some(w) = bytes.get(start..start + 16) {
            let w: [u8; 16] = w.try_into().unwrap_or([0; 16]);
            out.extend_from_slice(&w);
            out.truncate(out.len() - (16 - n));
            return;
        }
    }
    out.extend_from_slice(&bytes[start..at]);
}

/// Append the escape of `b`, a byte [`needs_escape`] holds.
fn escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
    }
}

/// Append `s` as a JSON string. Where escapes are sparse (text, base64), clean 32-byte blocks
/// are skipped whole and each run is copied once; where they are dense (a run under 32 bytes,
/// as in JSON held as text), the next escape is looked for eight bytes at a time straight away.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if bytes.len() <= SHORT && short_is_clean(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    let mut dense = false;
    loop {
        let from = if dense {
            start
        } else {
            next_dirty_block(bytes, start)
        };
        let at = next_escape(bytes, from);
        dense = at - start < 32;
        copy_run(out, bytes, start, at);
        let Some(&b) = bytes.get(at) else { break };
        escape(out, b);
        start = at + 1;
    }
    out.push(b'"');
}

/// Append `v` as JSON.
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // Numbers as serde_json writes them (its integer and float formatting).
        Value::Number(n) => serde_json::to_writer(&mut *out, n).unwrap_or_default(),
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, x);
            }
            out.push(b']');
        }
        Value::Object(m) => write_map(out, m),
    }
}

/// Append `m` as a JSON object, its members in the map's order.
pub(crate) fn write_map(out: &mut Vec<u8>, m: &Map<String, Value>) {
    out.push(b'{');
    for (i, (k, x)) in m.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, k);
        out.push(b':');
        write_value(out, x);
    }
    out.push(b'}');
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// around the 8-byte chunk, non-ASCII (2, 3 and 4 bytes), and a base64 alphabet.
    pub(crate) fn strings() -> Vec<String> {
        let mut v: Vec<String> = vec![
            String::new(),
            "a".into(),
            "\"".into(),
            "\\".into(),
            "é".into(),
            "ΑΒΓ ñ € 𝄞 日本語 \u{7f} \u{80} \u{2028}\u{2029}".into(),
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/==".into(),
        ];
        for b in 0u8..0x80 {
            for pad in 0..18 {
                let run = "x".repeat(pad);
                v.push(format!("{run}{}{run}é{}", char::from(b), char::from(b)));
            }
        }
        // Clean runs of every length around the 16-byte copy and the 32-byte block, between
        // escapes and at either end.
        for n in 0..70 {
            let run = "y".repeat(n);
            v.push(format!("{run}\"{run}\n{run}"));
            v.push(format!("\\{run}"));
        }
        // One escape at each place of a string up to past the short-string length.
        for n in 1..=SHORT + 9 {
            for at in 0..n {
                for c in ['"', '\\', '\u{1f}', '\u{0}'] {
                    for base in ["x", "xé"] {
                        let mut s: Vec<char> = base.chars().cycle().take(n).collect();
                        s[at] = c;
                        v.push(s.into_iter().collect());
                    }
                }
            }
        }
        // Bytes just beside the ones that escape, where a borrow could mislead the test.
        v.push("\u{1f}\u{20}\u{21}\u{22}\u{23}\u{5b}\u{5c}\u{5d}\u{ff}\u{100}".repeat(5));
        v.push("!#[]".repeat(20) + "\"" + &"ÿ".repeat(9));
        v
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for s in strings() {
            let mut out = Vec::new();
            write_str(&mut out, &s);
            assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let v = json!({
            "z": [1, -2, 3.5, 1e300, 0.1, u64::MAX, i64::MIN, null, true, false],
            "a\"b\n": {"nested": [{"é": "\u{0}\u{1f}\t"}, [], {}]},
            "s": strings(),
        });
        let mut out = Vec::new();
        write_value(&mut out, &v);
        assert_eq!(out, serde_json::to_vec(&v).unwrap());
    }
}
