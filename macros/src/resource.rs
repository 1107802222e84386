//! `#[resource(uri = "...")]`: a `Resource`, or a `ResourceTemplate` when the URI has
//! `{variables}`, which are then the function's `String` parameters.

use crate::attrs::{self, lit};
use crate::descriptor::descriptor;
use crate::params;
use crate::prompt::string_args;
use crate::ret;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ItemFn, LitStr};

pub(crate) fn free(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut f: ItemFn = syn::parse2(item)?;
    let args = attrs::parse_args(attr)?;
    let params = params::parse(&mut f.sig, false)?;
    let ret = ret::parse(&f.sig.output)?;
    let ident = f.sig.ident.clone();
    let mut name = lit(ident.to_string().trim_start_matches("r#"));
    let mut uri: Option<LitStr> = None;
    let mut mime = quote!(::std::option::Option::None);
    let mut mime_lit: Option<LitStr> = None;
    let mut calls = descriptor(
        &args,
        attrs::doc(&f.attrs),
        "uri, name, title, description, mime_type, icons, meta, scopes",
        |a| {
            match a.key.to_string().as_str() {
                "uri" => uri = Some(a.str()?),
                "name" => name = a.str()?,
                "mime_type" => {
                    let m = a.str()?;
                    mime = quote!(::std::option::Option::Some(#m));
                    mime_lit = Some(m);
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
    )?;
    let uri = uri.ok_or_else(|| {
        syn::Error::new_spanned(&f.sig.ident, "a resource needs `uri = \"scheme://...\"`")
    })?;
    let template = uri.value().contains('{');
    if !template {
        if let Some((ident, _, _)) = params.named().next() {
            return Err(syn::Error::new_spanned(
                ident,
                format!("parameter `{ident}`: a resource with a fixed URI takes no arguments (write `{{{ident}}}` in the URI for a template)"),
            ));
        }
    }
    let (reads, call_args) = string_args(&params, "URI template variable")?;
    if let Some(m) = &mime_lit {
        calls.extend(quote!(.mime_type(#m)));
    }
    let awaited = if f.sig.asyncness.is_some() {
        quote!(.await)
    } else {
        quote!()
    };
    let convert = ret.map(|v, ty| match ty {
        Some(_) => quote!(::oxmcp::macro_support::IntoContents::into_contents(#v, __uri, __mime)),
        None => quote!(::std::vec::Vec::<::oxmcp::ResourceContents>::new()),
    });
    let (ty, kind, what) = if template {
        (
            quote!(::oxmcp::ResourceTemplate),
            "resource_template",
            "resource template",
        )
    } else {
        (quote!(::oxmcp::Resource), "resource", "resource")
    };
    let body = quote! {
        let __mime: ::std::option::Option<&'static str> = #mime;
        let __res = #ty::new(#uri, #name) #calls;
        __res.handler(move |__uri: ::std::string::String, mut __map: ::oxmcp::serde_json::Map<::std::string::String, ::oxmcp::serde_json::Value>, __ctx: ::oxmcp::Context| {
            #reads
            async move {
                let __r = #ident(#(#call_args),*) #awaited;
                #convert
            }
        })
    };
    let ctor = crate::emit_constructor(
        &f.vis,
        &format_ident!("{}_resource", ident.to_string().trim_start_matches("r#")),
        ty,
        kind,
        &format!("`{}` {what}", uri.value()),
        body,
    );
    Ok(quote!(#f #ctor))
}
