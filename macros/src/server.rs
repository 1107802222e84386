//! `#[server]` on an `impl` block: its `#[tool]`, `#[prompt]` and `#[resource(uri = ..)]`
//! methods, which take `&self`, get constructor methods on `Arc<Self>` (each handler holds a
//! clone of the `Arc`), and `tools()` / `prompts()` / `resources()` / `resource_templates()`
//! list them.

use crate::attrs;
use crate::params;
use crate::ret;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ImplItem, ItemImpl};

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            "`#[oxmcp::server]` takes no arguments",
        ));
    }
    let mut block: ItemImpl = syn::parse2(item)?;
    let mut ctors = TokenStream::new();
    let (mut tools, mut prompts) = (Vec::new(), Vec::new());
    let (mut resources, mut templates) = (Vec::new(), Vec::new());
    let mut errors: Option<syn::Error> = None;
    for it in block.items.iter_mut() {
        let ImplItem::Fn(m) = it else { continue };
        let mut marks = Vec::new();
        for (kind, mark) in [
            (Kind::Tool, "tool"),
            (Kind::Prompt, "prompt"),
            (Kind::Resource, "resource"),
        ] {
            if let Some(a) = attrs::take(&mut m.attrs, mark)? {
                marks.push((kind, a));
            }
        }
        let (kind, args) = match marks.len() {
            0 => continue,
            1 => marks.remove(0),
            _ => {
                return Err(syn::Error::new_spanned(
                    &m.sig.ident,
                    "a method is one of a tool, a prompt or a resource",
                ));
            }
        };
        let r = (|| {
            let params = params::parse(&mut m.sig, true)?;
            let ret = ret::parse(&m.sig.output)?;
            let ident = m.sig.ident.clone();
            let doc = attrs::doc(&m.attrs);
            let stem = ident.to_string().trim_start_matches("r#").to_string();
            let callee = if params.receiver {
                quote!(__this.#ident)
            } else {
                quote!(Self::#ident)
            };
            let vis = &m.vis;
            if kind == Kind::Tool {
                params.refuse_completers("tool arguments")?;
                let (name, calls) = crate::tool::options(&args, &ident, doc)?;
                let call_args = params.call_args();
                let body = crate::tool::body(
                    &name,
                    &calls,
                    &params,
                    &ret,
                    quote!(#callee(#(#call_args),*)),
                    m.sig.asyncness.is_some(),
                    true,
                );
                let ctor = format_ident!("{stem}_tool");
                let d = format!(
                    "The `{}` tool, its handler sharing this value.",
                    name.value()
                );
                ctors.extend(quote! {
                    #[doc = #d]
                    #vis fn #ctor(self: &::std::sync::Arc<Self>) -> ::oxmcp::Tool { #body }
                });
                tools.push(ctor);
            } else if kind == Kind::Resource {
                let built = crate::resource::build(
                    &args,
                    &params,
                    &ret,
                    &m.sig,
                    doc,
                    callee,
                    params.receiver,
                )?;
                let ctor = format_ident!("{stem}_resource");
                let ty = built.ty();
                let what = if built.template {
                    "resource template"
                } else {
                    "resource"
                };
                let d = format!(
                    "The `{}` {what}, its handler sharing this value.",
                    built.uri.value()
                );
                let body = built.body;
                ctors.extend(quote! {
                    #[doc = #d]
                    #vis fn #ctor(self: &::std::sync::Arc<Self>) -> #ty { #body }
                });
                if built.template {
                    templates.push(ctor);
                } else {
                    resources.push(ctor);
                }
            } else {
                let (name, body) = crate::prompt::build(
                    &args,
                    &params,
                    &ret,
                    &m.sig,
                    doc,
                    callee,
                    params.receiver,
                )?;
                let ctor = format_ident!("{stem}_prompt");
                let d = format!(
                    "The `{}` prompt, its handler sharing this value.",
                    name.value()
                );
                ctors.extend(quote! {
                    #[doc = #d]
                    #vis fn #ctor(self: &::std::sync::Arc<Self>) -> ::oxmcp::Prompt {
                        #body
                    }
                });
                prompts.push(ctor);
            }
            Ok(())
        })();
        if let Err(e) = r {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let (g, ty, wh) = (
        &block.generics,
        &block.self_ty,
        &block.generics.where_clause,
    );
    let (impl_g, _, _) = g.split_for_impl();
    let list = |name: &str, items: &[syn::Ident], t: TokenStream| {
        let f = format_ident!("{name}");
        let d = match name {
            "resources" => "Every `#[resource]` method of this block with a fixed URI.".into(),
            "resource_templates" => {
                "Every `#[resource]` method of this block with a URI template.".into()
            }
            _ => format!(
                "Every `#[{}]` method of this block.",
                name.trim_end_matches('s')
            ),
        };
        quote! {
            #[doc = #d]
            pub fn #f(self: &::std::sync::Arc<Self>) -> ::std::vec::Vec<#t> {
                ::std::vec![#(self.#items()),*]
            }
        }
    };
    let tools_fn = (!tools.is_empty()).then(|| list("tools", &tools, quote!(::oxmcp::Tool)));
    let prompts_fn =
        (!prompts.is_empty()).then(|| list("prompts", &prompts, quote!(::oxmcp::Prompt)));
    let resources_fn =
        (!resources.is_empty()).then(|| list("resources", &resources, quote!(::oxmcp::Resource)));
    let templates_fn = (!templates.is_empty()).then(|| {
        list(
            "resource_templates",
            &templates,
            quote!(::oxmcp::ResourceTemplate),
        )
    });
    Ok(quote! {
        #block
        impl #impl_g #ty #wh {
            #ctors
            #tools_fn
            #prompts_fn
            #resources_fn
            #templates_fn
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tool,
    Prompt,
    Resource,
}
