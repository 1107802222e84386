//! The descriptor keys every attribute accepts, read in one place so `#[tool]`, `#[prompt]` and
//! `#[resource]` spell and check them alike.

use crate::attrs::{lit, Arg};
use proc_macro2::{Delimiter, TokenStream};
use quote::quote;

/// Descriptor calls every kind shares: `title`, `description`, `icons`, `meta`, `scopes`.
/// `extra` reads the kind's own keys (and says whether it took one); an unknown key is an error
/// naming `known`.
pub(crate) fn descriptor(
    args: &[Arg],
    doc: Option<String>,
    known: &str,
    mut extra: impl FnMut(&Arg) -> syn::Result<bool>,
) -> syn::Result<TokenStream> {
    let mut description = doc.map(|d| lit(&d));
    let mut calls = TokenStream::new();
    for a in args {
        match a.key.to_string().as_str() {
            "description" => description = Some(a.str()?),
            "title" => {
                let t = a.str()?;
                calls.extend(quote!(.title(#t)));
            }
            "icons" => {
                let v = a.json(Delimiter::Bracket)?;
                calls.extend(quote!(.icons(::oxmcp::serde_json::json!(#v))));
            }
            "meta" => {
                let v = a.json(Delimiter::Brace)?;
                calls.extend(
                    quote!(.meta(::oxmcp::macro_support::object(::oxmcp::serde_json::json!(#v)))),
                );
            }
            "scopes" => {
                let v = a.json(Delimiter::Bracket)?;
                calls.extend(quote!(.required_scopes(#v)));
            }
            _ => {
                if !extra(a)? {
                    return Err(a.unknown(known));
                }
            }
        }
    }
    if let Some(d) = description {
        calls.extend(quote!(.description(#d)));
    }
    Ok(calls)
}
