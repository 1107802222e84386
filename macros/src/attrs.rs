//! Attribute arguments: `key = value` pairs and bare flags, each value kept as tokens until the
//! option that reads it says what it must be.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Ident, LitBool, LitInt, LitStr, Token};

pub(crate) struct Arg {
    pub(crate) key: Ident,
    pub(crate) value: Option<TokenStream>,
}

impl Arg {
    fn value(&self) -> syn::Result<TokenStream> {
        self.value.clone().ok_or_else(|| {
            syn::Error::new(self.key.span(), format!("`{}` needs a value", self.key))
        })
    }
    pub(crate) fn str(&self) -> syn::Result<LitStr> {
        syn::parse2(self.value()?).map_err(|_| self.err("a string literal"))
    }
    pub(crate) fn int(&self) -> syn::Result<LitInt> {
        syn::parse2(self.value()?).map_err(|_| self.err("an integer literal"))
    }
    /// A bare flag is `true`; `flag = false` says so explicitly.
    pub(crate) fn flag(&self) -> syn::Result<bool> {
        match &self.value {
            None => Ok(true),
            Some(v) => syn::parse2::<LitBool>(v.clone())
                .map(|b| b.value)
                .map_err(|_| self.err("`true` or `false`")),
        }
    }
    /// JSON written as it would be inside `serde_json::json!` (an object `{...}` or array `[...]`).
    pub(crate) fn json(&self, delim: proc_macro2::Delimiter) -> syn::Result<TokenStream> {
        let v = self.value()?;
        let mut it = v.clone().into_iter();
        match (it.next(), it.next()) {
            (Some(TokenTree::Group(g)), None) if g.delimiter() == delim => Ok(v),
            _ => Err(self.err(if delim == proc_macro2::Delimiter::Brace {
                "a JSON object `{ \"key\": value, ... }`"
            } else {
                "a JSON array `[ ... ]`"
            })),
        }
    }
    fn err(&self, what: &str) -> syn::Error {
        syn::Error::new(self.key.span(), format!("`{}` takes {what}", self.key))
    }
    pub(crate) fn unknown(&self, known: &str) -> syn::Error {
        syn::Error::new(
            self.key.span(),
            format!("unknown argument `{}`; expected one of: {known}", self.key),
        )
    }
}

pub(crate) fn parse_args(tokens: TokenStream) -> syn::Result<Vec<Arg>> {
    let parser = |input: ParseStream| {
        let mut out = Vec::new();
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            let value = if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
                let mut v = TokenStream::new();
                while !input.is_empty() && !input.peek(Token![,]) {
                    v.extend([input.parse::<TokenTree>()?]);
                }
                Some(v)
            } else {
                None
            };
            out.push(Arg { key, value });
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(out)
    };
    parser.parse2(tokens)
}

/// The arguments of `#[name(...)]` attributes in `attrs` (one named `name`, or ending in
/// `::name`), removed from `attrs`. `Some` when there was one.
pub(crate) fn take(attrs: &mut Vec<Attribute>, name: &str) -> syn::Result<Option<Vec<Arg>>> {
    let mut found = None;
    let mut err = None;
    attrs.retain(|a| {
        let is = a.path().segments.last().is_some_and(|s| s.ident == name);
        if is {
            let tokens = match &a.meta {
                syn::Meta::Path(_) => Ok(TokenStream::new()),
                syn::Meta::List(l) => Ok(l.tokens.clone()),
                syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(nv, "use `#[name(...)]`")),
            };
            match tokens.and_then(parse_args) {
                Ok(args) if found.is_none() => found = Some(args),
                Ok(_) => err = Some(syn::Error::new_spanned(a, format!("a second `#[{name}]`"))),
                Err(e) => err = Some(e),
            }
        }
        !is
    });
    match err {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// The doc comment of an item, its lines joined as rustdoc shows them (trimmed, one space).
pub(crate) fn doc(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|l| l.trim().to_string())
        .collect();
    let text = lines.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

pub(crate) fn lit(s: &str) -> LitStr {
    LitStr::new(s, Span::call_site())
}
