//! `#[resource(uri = "...")]`: a `Resource`, or a `ResourceTemplate` when the URI has
//! `{variables}`, which are then the function's `String` parameters.

use crate::attrs::{self, lit, Arg};
use crate::descriptor::descriptor;
use crate::params::{self, Params};
use crate::prompt::string_args;
use crate::ret::{self, Ret};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ItemFn, LitStr};

/// What `build` made: the URI (or URI template), whether it is a template, and the body of the
/// constructor.
pub(crate) struct Built {
    pub(crate) uri: LitStr,
    pub(crate) template: bool,
    pub(crate) body: TokenStream,
}

impl Built {
    pub(crate) fn ty(&self) -> TokenStream {
        if self.template {
            quote!(::oxmcp::ResourceTemplate)
        } else {
            quote!(::oxmcp::Resource)
        }
    }
}

/// The constructor's body for a function or a method (`this`: its handler holds the state's
/// `Arc` and lends each read a clone of it).
pub(crate) fn build(
    args: &[Arg],
    params: &Params,
    ret: &Ret,
    sig: &syn::Signature,
    doc: Option<String>,
    callee: TokenStream,
    this: bool,
) -> syn::Result<Built> {
    let mut name = lit(sig.ident.to_string().trim_start_matches("r#"));
    let mut uri: Option<LitStr> = None;
    let mut mime = quote!(::std::option::Option::None);
    let mut mime_lit: Option<LitStr> = None;
    let mut calls = descriptor(
        args,
        doc,
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
        syn::Error::new_spanned(&sig.ident, "a resource needs `uri = \"scheme://...\"`")
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
    let (reads, call_args) = string_args(params, "URI template variable")?;
    if let Some(m) = &mime_lit {
        calls.extend(quote!(.mime_type(#m)));
    }
    calls.extend(params.completer());
    let awaited = if sig.asyncness.is_some() {
        quote!(.await)
    } else {
        quote!()
    };
    let convert = ret.map(|v, ty| match ty {
        Some(_) => quote!(::oxmcp::macro_support::IntoContents::into_contents(#v, __uri, __mime)),
        None => quote!(::std::vec::Vec::<::oxmcp::ResourceContents>::new()),
    });
    let (hold, lend) = if this {
        (
            quote!(let __this = ::std::sync::Arc::clone(self);),
            quote!(let __this = ::std::sync::Arc::clone(&__this);),
        )
    } else {
        (quote!(), quote!())
    };
    let ty = if template {
        quote!(::oxmcp::ResourceTemplate)
    } else {
        quote!(::oxmcp::Resource)
    };
    let body = quote! {
        #hold
        let __mime: ::std::option::Option<&'static str> = #mime;
        let __res = #ty::new(#uri, #name) #calls;
        __res.handler(move |__uri: ::std::string::String, mut __map: ::oxmcp::serde_json::Map<::std::string::String, ::oxmcp::serde_json::Value>, __ctx: ::oxmcp::Context| {
            #lend
            #reads
            async move {
                let __r = #callee(#(#call_args),*) #awaited;
                #convert
            }
        })
    };
    Ok(Built {
        uri,
        template,
        body,
    })
}

pub(crate) fn free(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut f: ItemFn = syn::parse2(item)?;
    let args = attrs::parse_args(attr)?;
    let params = params::parse(&mut f.sig, false)?;
    let ret = ret::parse(&f.sig.output)?;
    let ident = f.sig.ident.clone();
    let built = build(
        &args,
        &params,
        &ret,
        &f.sig,
        attrs::doc(&f.attrs),
        quote!(#ident),
        false,
    )?;
    let (kind, what) = if built.template {
        ("resource_template", "resource template")
    } else {
        ("resource", "resource")
    };
    let ctor = crate::emit_constructor(
        &f.vis,
        &format_ident!("{}_resource", ident.to_string().trim_start_matches("r#")),
        built.ty(),
        kind,
        &format!("`{}` {what}", built.uri.value()),
        built.body,
    );
    Ok(quote!(#f #ctor))
}
