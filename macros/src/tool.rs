//! `#[tool]`: the `Tool` a function's constructor builds, through `Tool::typed`.

use crate::attrs::{self, lit, Arg};
use crate::descriptor::descriptor;
use crate::params::{self, Params};
use crate::ret::{self, Ret};
use proc_macro2::{Delimiter, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, ItemFn, LitStr};

const KNOWN: &str = "name, title, description, read_only, destructive, idempotent, open_world, \
    icons, meta, task, task_after_ms, timeout_ms, max_concurrency, scopes, app, app_visibility";

/// The builder calls the attribute's arguments add (`.title(..)`, `.annotations(..)`, ...), and
/// the tool's name.
pub(crate) fn options(
    args: &[Arg],
    fn_name: &Ident,
    doc: Option<String>,
) -> syn::Result<(LitStr, TokenStream)> {
    let mut name = lit(fn_name.to_string().trim_start_matches("r#"));
    let mut own = TokenStream::new();
    let mut hints: [TokenStream; 4] = Default::default();
    let mut app: Option<LitStr> = None;
    let mut visibility = quote!([]);
    let mut calls = descriptor(args, doc, KNOWN, |a| {
        let k = a.key.to_string();
        match k.as_str() {
            "name" => name = a.str()?,
            "read_only" | "destructive" | "idempotent" | "open_world" => {
                let i = ["read_only", "destructive", "idempotent", "open_world"]
                    .iter()
                    .position(|h| *h == k)
                    .unwrap_or_default();
                let b = a.flag()?;
                hints[i] = quote!(::std::option::Option::Some(#b));
            }
            "task" => {
                let s = a.str()?;
                let variant = match s.value().as_str() {
                    "forbidden" => quote!(Forbidden),
                    "optional" => quote!(Optional),
                    "required" => quote!(Required),
                    _ => {
                        return Err(syn::Error::new_spanned(
                            s,
                            "`task` is \"forbidden\", \"optional\" or \"required\"",
                        ))
                    }
                };
                own.extend(quote!(.task_support(::oxmcp::tasks::TaskSupport::#variant)));
            }
            "task_after_ms" | "timeout_ms" => {
                let n = a.int()?;
                let m = format_ident!("{}", k.trim_end_matches("_ms"));
                own.extend(quote!(.#m(::std::time::Duration::from_millis(#n))));
            }
            "max_concurrency" => {
                let n = a.int()?;
                own.extend(quote!(.max_concurrency(#n)));
            }
            "app" => app = Some(a.str()?),
            "app_visibility" => visibility = a.json(Delimiter::Bracket)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    calls.extend(own);
    if hints.iter().any(|h| !h.is_empty()) {
        let h = hints.map(|h| {
            if h.is_empty() {
                quote!(::std::option::Option::None)
            } else {
                h
            }
        });
        calls.extend(quote! {
            .annotations(::oxmcp::macro_support::annotations(#(#h),*).unwrap_or_default())
        });
    }
    // After `meta`: the app link is merged into `_meta`.
    if let Some(uri) = app {
        calls.extend(quote!(.app(#uri, &#visibility)));
    }
    Ok((name, calls))
}

/// The constructor's body. `call` is the function called with its arguments (`add(a, b)`,
/// `__this.add(a, b)`); `this` the state the handler holds, if any.
pub(crate) fn body(
    name: &LitStr,
    calls: &TokenStream,
    params: &Params,
    ret: &Ret,
    call: TokenStream,
    asyncness: bool,
    this: bool,
) -> TokenStream {
    let (args_ty, args_def) = params.args_type();
    let awaited = if asyncness { quote!(.await) } else { quote!() };
    let convert = ret.map(|v, ty| match ty {
        Some(t) => quote!((&&&::oxmcp::macro_support::Ret::<#t>::new()).shape().result(#v)),
        None => quote!(::oxmcp::ToolResult::new(::std::vec::Vec::new())),
    });
    let run = quote! {
        async move {
            let __r = #call #awaited;
            #convert
        }
    };
    let handler = if this {
        quote! {{
            let __this = ::std::sync::Arc::clone(self);
            move |__args: ::oxmcp::Args<#args_ty>, __ctx: ::oxmcp::Context| {
                let __this = ::std::sync::Arc::clone(&__this);
                #run
            }
        }}
    } else {
        quote!(|__args: ::oxmcp::Args<#args_ty>, __ctx: ::oxmcp::Context| #run)
    };
    let output = match &ret.value {
        Some(t) => quote! {
            let __tool = match (&&&::oxmcp::macro_support::Ret::<#t>::new()).shape().output_schema() {
                ::std::option::Option::Some(__s) => __tool.output_schema(__s),
                ::std::option::Option::None => __tool,
            };
        },
        None => quote!(),
    };
    quote! {
        #[allow(unused_imports)]
        use ::oxmcp::macro_support::{PickJson as _, PickPlain as _, PickStruct as _};
        #args_def
        let __tool = ::oxmcp::Tool::typed(#name, #handler);
        #output
        __tool #calls
    }
}

pub(crate) fn free(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut f: ItemFn = syn::parse2(item)?;
    let args = attrs::parse_args(attr)?;
    let params = params::parse(&mut f.sig, false)?;
    params.refuse_completers("tool arguments")?;
    let ret = ret::parse(&f.sig.output)?;
    let (name, calls) = options(&args, &f.sig.ident, attrs::doc(&f.attrs))?;
    let ident = &f.sig.ident;
    let call_args = params.call_args();
    let body = body(
        &name,
        &calls,
        &params,
        &ret,
        quote!(#ident(#(#call_args),*)),
        f.sig.asyncness.is_some(),
        false,
    );
    let ctor = crate::emit_constructor(
        &f.vis,
        &format_ident!("{}_tool", ident.to_string().trim_start_matches("r#")),
        quote!(::oxmcp::Tool),
        "tool",
        &format!("`{}` tool", name.value()),
        body,
    );
    Ok(quote!(#f #ctor))
}
