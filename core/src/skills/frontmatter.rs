//! `SKILL.md` frontmatter: the YAML between the first two `---` lines, read as JSON.
//!
//! The entry carries the frontmatter verbatim, so every value must have a JSON form: numbers
//! finite, mapping keys strings. Aliases are refused, because a few bytes of aliases can
//! expand into an arbitrarily large document.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// Deeper than this is refused (a hostile file could otherwise recurse without bound).
const MAX_DEPTH: usize = 32;

/// The frontmatter of `text` (a whole `SKILL.md`), as a JSON object. `Err`: what is wrong.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md must begin with a '---' line (YAML frontmatter)")?;
    let mut yaml_end = None;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            yaml_end = Some(at);
            break;
        }
        at += line.len();
    }
    let yaml = &rest[..yaml_end.ok_or("the frontmatter has no closing '---' line")?];
    // Aliases are refused before the document is built: the loader would copy each one.
    let mut parser = yaml_rust2::parser::Parser::new_from_str(yaml);
    loop {
        match parser.next_token() {
            Ok((yaml_rust2::Event::Alias(_), _)) => {
                return Err("the frontmatter must not use YAML aliases".into())
            }
            Ok((yaml_rust2::Event::StreamEnd, _)) => break,
            Ok(_) => {}
            Err(e) => return Err(format!("the frontmatter is not valid YAML: {e}")),
        }
    }
    let docs = YamlLoader::load_from_str(yaml)
        .map_err(|e| format!("the frontmatter is not valid YAML: {e}"))?;
    match docs.into_iter().next() {
        None => Err("the frontmatter must be a mapping of keys to values".into()),
        Some(Yaml::Hash(h)) => match to_json(Yaml::Hash(h), 0)? {
            Value::Object(m) => Ok(m),
            _ => unreachable!("a hash converts to an object"),
        },
        Some(_) => Err("the frontmatter must be a mapping of keys to values".into()),
    }
}

fn to_json(y: Yaml, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "the frontmatter nests deeper than {MAX_DEPTH} levels"
        ));
    }
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::from(i),
        Yaml::Real(s) => {
            let f = y_real(&s).ok_or_else(|| format!("the number {s} has no JSON form"))?;
            Value::Number(
                Number::from_f64(f).ok_or_else(|| format!("the number {s} has no JSON form"))?,
            )
        }
        Yaml::String(s) => Value::String(s),
        Yaml::Array(a) => Value::Array(
            a.into_iter()
                .map(|v| to_json(v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let Yaml::String(k) = k else {
                    return Err("frontmatter mapping keys must be strings".into());
                };
                if m.contains_key(&k) {
                    return Err(format!("duplicate frontmatter key: {k}"));
                }
                m.insert(k, to_json(v, depth + 1)?);
            }
            Value::Object(m)
        }
        Yaml::Alias(_) => return Err("the frontmatter must not use YAML aliases".into()),
        Yaml::BadValue => return Err("the frontmatter holds a value YAML cannot read".into()),
    })
}

/// A YAML 1.2 float (`1.5`, `1e3`, `.5`); infinities and NaN have no JSON form.
fn y_real(s: &str) -> Option<f64> {
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_typical_frontmatter() {
        let m = parse("---\nname: a-b\ndescription: >\n  Two\n  lines\nmetadata:\n  k: v\nn: 3\nf: 1.5\nt: true\nl: [x, y]\n---\n# body\n").unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"name": "a-b", "description": "Two lines\n", "metadata": {"k": "v"},
                   "n": 3, "f": 1.5, "t": true, "l": ["x", "y"]})
        );
    }

    #[test]
    fn refuses_what_has_no_json_form() {
        assert!(parse("name: x\n").unwrap_err().contains("begin with"));
        assert!(parse("---\nname: x\n").unwrap_err().contains("closing"));
        assert!(parse("---\n- a\n---\n").unwrap_err().contains("mapping"));
        assert!(parse("---\na: &x 1\nb: *x\n---\n")
            .unwrap_err()
            .contains("aliases"));
        assert!(parse("---\n1: a\n---\n")
            .unwrap_err()
            .contains("keys must be strings"));
        assert!(parse("---\na: .inf\n---\n").unwrap_err().contains("JSON"));
        // CRLF and a byte-order mark are read as the SDKs read them.
        let m = parse("\u{feff}---\r\nname: x\r\n---\r\n").unwrap();
        assert_eq!(m["name"], "x");
    }
}
