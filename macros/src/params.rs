//! A function's parameters, sorted into what the generated handler passes: the `Context`
//! (found by its type, wherever it stands), one `Args<T>` taking the whole arguments object, or
//! named arguments that become the properties of a derived input schema.

use crate::attrs::{self, lit};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, LitStr, Pat, Type};

pub(crate) enum Param {
    /// `ctx: Context` (by value) or `ctx: &Context`.
    Context { by_ref: bool },
    /// `Args(p): Args<T>`: the whole arguments object as `T`.
    Whole { ty: Type },
    /// `name: T`: one property; `Option<T>` is not required.
    Named {
        ident: Ident,
        ty: Type,
        description: Option<LitStr>,
        /// `#[param(complete = ..)]`: the value tokens (a prompt argument or template variable).
        complete: Option<(Ident, TokenStream)>,
    },
}

pub(crate) struct Params {
    pub(crate) list: Vec<Param>,
    /// The method takes `&self`.
    pub(crate) receiver: bool,
}

fn last_ident(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn is_context(ty: &Type) -> bool {
    last_ident(ty).is_some_and(|s| s.ident == "Context" && s.arguments.is_none())
}

/// `T` of `Option<T>` (the property is then not required).
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let seg = last_ident(ty)?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Reads (and strips) the parameters' `#[param(...)]` attributes and doc comments.
/// `methods`: whether `&self` is allowed (in an `#[oxmcp::server]` impl block).
pub(crate) fn parse(sig: &mut syn::Signature, methods: bool) -> syn::Result<Params> {
    let mut list = Vec::new();
    let mut receiver = false;
    let mut context_at: Option<String> = None;
    let mut errors: Option<syn::Error> = None;
    let mut push_err = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    if !sig.generics.params.is_empty() {
        push_err(syn::Error::new_spanned(
            &sig.generics,
            "a generic function cannot be a tool, prompt or resource: its schema is derived from concrete types",
        ));
    }
    for input in sig.inputs.iter_mut() {
        let pt = match input {
            FnArg::Receiver(r) => {
                if !methods {
                    push_err(syn::Error::new_spanned(
                        &*r,
                        "a method with `self` is a tool only inside an `#[oxmcp::server]` impl block",
                    ));
                } else if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some()
                {
                    push_err(syn::Error::new_spanned(
                        &*r,
                        format!(
                            "`{}`: take `&self`; the state is shared by every call through an `Arc`",
                            quote!(#r)
                        ),
                    ));
                }
                receiver = true;
                continue;
            }
            FnArg::Typed(pt) => pt,
        };
        let desc_attr = match attrs::take(&mut pt.attrs, "param") {
            Ok(a) => a,
            Err(e) => {
                push_err(e);
                None
            }
        };
        let mut description = attrs::doc(&pt.attrs).map(|d| lit(&d));
        let mut complete = None;
        pt.attrs.retain(|a| !a.path().is_ident("doc"));
        for a in desc_attr.into_iter().flatten() {
            if a.key == "description" {
                match a.str() {
                    Ok(s) => description = Some(s),
                    Err(e) => push_err(e),
                }
            } else if a.key == "complete" {
                match &a.value {
                    Some(v) if !v.is_empty() => complete = Some((a.key.clone(), v.clone())),
                    _ => push_err(syn::Error::new(
                        a.key.span(),
                        "`complete` takes a list `[\"a\", ..]`, an enum type or a function",
                    )),
                }
            } else {
                push_err(a.unknown("description, complete"));
            }
        }
        let name = match &*pt.pat {
            Pat::Ident(p) => p.ident.to_string(),
            other => quote!(#other).to_string(),
        };
        let ty = &*pt.ty;
        let (ctx, by_ref) = match ty {
            Type::Reference(r) if r.mutability.is_none() && is_context(&r.elem) => (true, true),
            t => (is_context(t), false),
        };
        if ctx {
            if let Some(first) = &context_at {
                push_err(syn::Error::new_spanned(
                    &*pt,
                    format!("parameter `{name}`: a second `Context` (`{first}` is one); a handler gets one"),
                ));
            }
            context_at = Some(name);
            list.push(Param::Context { by_ref });
            continue;
        }
        if last_ident(ty).is_some_and(|s| s.ident == "Args") {
            let inner = match &last_ident(ty).map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(a)) if a.args.len() == 1 => {
                    match &a.args[0] {
                        syn::GenericArgument::Type(t) => Some(t.clone()),
                        _ => None,
                    }
                }
                _ => None,
            };
            match inner {
                Some(t) => list.push(Param::Whole { ty: t }),
                None => push_err(syn::Error::new_spanned(
                    ty,
                    format!("parameter `{name}`: write `Args<T>`"),
                )),
            }
            continue;
        }
        if let Type::Reference(_) = ty {
            push_err(syn::Error::new_spanned(
                ty,
                format!("parameter `{name}`: take an owned type (arguments are deserialized for each call), not a reference"),
            ));
            continue;
        }
        match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => list.push(Param::Named {
                ident: p.ident.clone(),
                ty: ty.clone(),
                description,
                complete,
            }),
            other => push_err(syn::Error::new_spanned(
                other,
                format!("parameter `{name}`: use a plain name (`x: T`), or take the whole arguments as `Args<T>`"),
            )),
        }
    }
    let whole = list
        .iter()
        .filter(|p| matches!(p, Param::Whole { .. }))
        .count();
    let named = list
        .iter()
        .filter(|p| matches!(p, Param::Named { .. }))
        .count();
    if whole > 1 || (whole == 1 && named > 0) {
        push_err(syn::Error::new_spanned(
            &sig.inputs,
            "an `Args<T>` parameter takes the whole arguments object: it cannot stand beside another `Args<T>` or named arguments",
        ));
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(Params { list, receiver }),
    }
}

impl Params {
    /// The type the arguments object deserializes into, and the items that define it: the given
    /// `T` of `Args<T>`, or a struct of the named parameters whose field docs are the schema's
    /// property descriptions.
    pub(crate) fn args_type(&self) -> (TokenStream, TokenStream) {
        if let Some(Param::Whole { ty }) =
            self.list.iter().find(|p| matches!(p, Param::Whole { .. }))
        {
            return (quote!(#ty), TokenStream::new());
        }
        let fields = self.list.iter().filter_map(|p| match p {
            Param::Named {
                ident,
                ty,
                description,
                ..
            } => {
                let doc = description
                    .as_ref()
                    .map(|d| quote!(#[schemars(description = #d)]));
                let default = option_inner(ty).map(|_| quote!(#[serde(default)]));
                // The field carries the parameter's span: a type with no `JsonSchema` or
                // `Deserialize` is reported at the parameter.
                Some(quote_spanned! {ty.span()=> #doc #default #ident: #ty })
            }
            _ => None,
        });
        let def = quote! {
            #[derive(::oxmcp::macro_support::serde::Deserialize, ::oxmcp::macro_support::schemars::JsonSchema)]
            #[serde(crate = "::oxmcp::macro_support::serde")]
            #[schemars(crate = "::oxmcp::macro_support::schemars")]
            struct __Params { #(#fields,)* }
        };
        (quote!(__Params), def)
    }

    /// The call's arguments, in the function's order: `__args` is the `Args<T>` the handler
    /// got, `__ctx` its `Context`.
    pub(crate) fn call_args(&self) -> Vec<TokenStream> {
        self.list
            .iter()
            .map(|p| match p {
                Param::Context { by_ref: false } => quote!(__ctx),
                Param::Context { by_ref: true } => quote!(&__ctx),
                Param::Whole { .. } => quote!(__args),
                Param::Named { ident, .. } => quote!(__args.0.#ident),
            })
            .collect()
    }

    pub(crate) fn named(&self) -> impl Iterator<Item = (&Ident, &Type, Option<&LitStr>)> {
        self.list.iter().filter_map(|p| match p {
            Param::Named {
                ident,
                ty,
                description,
                ..
            } => Some((ident, ty, description.as_ref())),
            _ => None,
        })
    }

    /// A tool's arguments are checked by its schema, not completed: `complete` on one is an error.
    pub(crate) fn refuse_completers(&self, what: &str) -> syn::Result<()> {
        match self.list.iter().find_map(|p| match p {
            Param::Named {
                complete: Some((key, _)),
                ..
            } => Some(key),
            _ => None,
        }) {
            Some(key) => Err(syn::Error::new(
                key.span(),
                format!("`complete` is for prompt arguments and resource template variables, not {what}"),
            )),
            None => Ok(()),
        }
    }

    /// `.complete(Completer::new()...)` for the parameters with `#[param(complete = ..)]`, or
    /// nothing. A list `[..]` is matched by the core's prefix rule; a path whose last segment is
    /// a type (`CamelCase`) is an enum whose values are its `JsonSchema` values; any other path
    /// or expression is a function `fn(&str) -> Vec<String>` (or `Completion`) given the typed text.
    pub(crate) fn completer(&self) -> TokenStream {
        let mut calls = TokenStream::new();
        for p in &self.list {
            let Param::Named {
                ident,
                complete: Some((_, v)),
                ..
            } = p
            else {
                continue;
            };
            let key = lit(ident.to_string().trim_start_matches("r#"));
            let first = v.clone().into_iter().next();
            let is_list = matches!(&first, Some(proc_macro2::TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Bracket);
            let is_type = syn::parse2::<syn::Path>(v.clone())
                .ok()
                .is_some_and(|path| {
                    path.segments.last().is_some_and(|s| {
                        s.ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_uppercase())
                    })
                });
            calls.extend(if is_list {
                quote!(.values(#key, #v))
            } else if is_type {
                quote!(.values_of::<#v>(#key))
            } else {
                quote!(.handler(#key, ::oxmcp::macro_support::complete_fn(#v)))
            });
        }
        if calls.is_empty() {
            return calls;
        }
        quote!(.complete(::oxmcp::Completer::new() #calls))
    }
}
