//! A function's return type: a `Result<T, E>` (its error mapped as the builders map it) or a
//! plain value, and the value type `T`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ReturnType, Type};

pub(crate) struct Ret {
    pub(crate) result: bool,
    /// `None`: nothing (`()`).
    pub(crate) value: Option<Type>,
}

fn unit(t: &Type) -> bool {
    matches!(t, Type::Tuple(t) if t.elems.is_empty())
}

pub(crate) fn parse(out: &ReturnType) -> syn::Result<Ret> {
    let ty = match out {
        ReturnType::Default => {
            return Ok(Ret {
                result: false,
                value: None,
            })
        }
        ReturnType::Type(_, t) => &**t,
    };
    if let Type::ImplTrait(_) = ty {
        return Err(syn::Error::new_spanned(
            ty,
            "return a named type: the result shape (and an output schema) is chosen from it",
        ));
    }
    if let Type::Path(p) = ty {
        if let Some(seg) = p.path.segments.last() {
            if seg.ident == "Result" {
                if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        let value = (!unit(t)).then(|| t.clone());
                        return Ok(Ret {
                            result: true,
                            value,
                        });
                    }
                }
            }
        }
    }
    Ok(Ret {
        result: false,
        value: (!unit(ty)).then(|| ty.clone()),
    })
}

impl Ret {
    /// `__r` (what the function returned) as `Result<U, E>`, each value through `conv` (given
    /// the value's tokens and type).
    pub(crate) fn map(
        &self,
        conv: impl Fn(TokenStream, Option<&Type>) -> TokenStream,
    ) -> TokenStream {
        let v = conv(quote!(__v), self.value.as_ref());
        if self.result {
            quote!(__r.map(|__v| #v))
        } else {
            quote!({ let __v = __r; ::std::result::Result::<_, ::std::convert::Infallible>::Ok(#v) })
        }
    }
}
