//! `#[prompt]`: the `Prompt` a function's constructor builds. Prompt arguments are strings, so
//! each named parameter is a `String` (required) or an `Option<String>`.

use crate::attrs::{self, lit, Arg};
use crate::descriptor::descriptor;
use crate::params::{self, Param, Params};
use crate::ret::{self, Ret};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ItemFn, LitStr, Type};

/// `Some(required)` for `String` and `Option<String>`.
pub(crate) fn string_param(ty: &Type) -> Option<bool> {
    let is_string = |t: &Type| matches!(t, Type::Path(p) if p.path.is_ident("String"));
    if is_string(ty) {
        return Some(true);
    }
    params::option_inner(ty)
        .filter(|t| is_string(t))
        .map(|_| false)
}

/// Each named parameter read from the handler's `mut __map` into a local of its name, and the
/// function's arguments in order. `what`: "prompt argument" or "URI template variable".
pub(crate) fn string_args(
    params: &Params,
    what: &str,
) -> syn::Result<(TokenStream, Vec<TokenStream>)> {
    let mut reads = TokenStream::new();
    let mut call = Vec::new();
    for p in &params.list {
        match p {
            Param::Context { by_ref } => call.push(if *by_ref {
                quote!(&__ctx)
            } else {
                quote!(__ctx)
            }),
            Param::Named { ident, ty, .. } => {
                let required = string_param(ty).ok_or_else(|| {
                    syn::Error::new_spanned(ty, format!("parameter `{ident}`: a {what} is a string: take `String` or `Option<String>`"))
                })?;
                let key = lit(ident.to_string().trim_start_matches("r#"));
                let get = quote!(::oxmcp::macro_support::take_str(&mut __map, #key));
                // A required one is checked by the core before the handler runs.
                reads.extend(if required {
                    quote!(let #ident = #get.unwrap_or_default();)
                } else {
                    quote!(let #ident = #get;)
                });
                call.push(quote!(#ident));
            }
            Param::Whole { ty } => {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!("`Args<T>` is for tools; a {what} is a `String` parameter"),
                ))
            }
        }
    }
    Ok((reads, call))
}

pub(crate) fn build(
    args: &[Arg],
    params: &Params,
    ret: &Ret,
    sig: &syn::Signature,
    doc: Option<String>,
    callee: TokenStream,
    this: bool,
) -> syn::Result<(LitStr, TokenStream)> {
    let mut name = lit(sig.ident.to_string().trim_start_matches("r#"));
    let asyncness = sig.asyncness.is_some();
    let calls = descriptor(
        args,
        doc,
        "name, title, description, icons, meta, scopes",
        |a| {
            if a.key == "name" {
                name = a.str()?;
                return Ok(true);
            }
            Ok(false)
        },
    )?;
    let mut decl = TokenStream::new();
    for (ident, ty, description) in params.named() {
        let key = lit(ident.to_string().trim_start_matches("r#"));
        let d = description.cloned().unwrap_or_else(|| lit(""));
        let required = string_param(ty).unwrap_or(true);
        decl.extend(quote!(.argument(#key, #d, #required)));
    }
    let (reads, call_args) = string_args(params, "prompt argument")?;
    let completer = params.completer();
    let awaited = if asyncness { quote!(.await) } else { quote!() };
    let convert = ret.map(|v, ty| match ty {
        Some(_) => quote!(::oxmcp::macro_support::IntoPromptResult::into_prompt_result(#v)),
        None => quote!(::oxmcp::PromptResult::new(::std::vec::Vec::new())),
    });
    // A method's handler holds the state's `Arc` and lends each call a clone of it.
    let (hold, lend) = if this {
        (
            quote!(let __this = ::std::sync::Arc::clone(self);),
            quote!(let __this = ::std::sync::Arc::clone(&__this);),
        )
    } else {
        (quote!(), quote!())
    };
    let body = quote! {
        #hold
        ::oxmcp::Prompt::new(#name) #calls #decl #completer
            .handler(move |mut __map: ::oxmcp::serde_json::Map<::std::string::String, ::oxmcp::serde_json::Value>, __ctx: ::oxmcp::Context| {
                #lend
                #reads
                async move {
                    let __r = #callee(#(#call_args),*) #awaited;
                    #convert
                }
            })
    };
    Ok((name, body))
}

pub(crate) fn free(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut f: ItemFn = syn::parse2(item)?;
    let args = attrs::parse_args(attr)?;
    let params = params::parse(&mut f.sig, false)?;
    let ret = ret::parse(&f.sig.output)?;
    let ident = f.sig.ident.clone();
    let (name, body) = build(
        &args,
        &params,
        &ret,
        &f.sig,
        attrs::doc(&f.attrs),
        quote!(#ident),
        false,
    )?;
    let ctor = crate::emit_constructor(
        &f.vis,
        &format_ident!("{}_prompt", ident.to_string().trim_start_matches("r#")),
        quote!(::oxmcp::Prompt),
        "prompt",
        &format!("`{}` prompt", name.value()),
        body,
    );
    Ok(quote!(#f #ctor))
}
