//! Attribute macros for oxmcp, re-exported by the `oxmcp` crate (feature `macros`) as
//! `oxmcp::tool`, `oxmcp::prompt`, `oxmcp::resource` and `oxmcp::server`.
//!
//! Each one keeps the function as written and adds a constructor beside it that builds the same
//! value the builder would (`Tool::typed`, `Prompt::new`, `Resource::new`,
//! `ResourceTemplate::new`), so a macro-made primitive is served by the one engine path:
//!
//! | on | constructor |
//! |---|---|
//! | `#[tool] fn add(..)` | `fn add_tool() -> oxmcp::Tool` |
//! | `#[prompt] fn greet(..)` | `fn greet_prompt() -> oxmcp::Prompt` |
//! | `#[resource(uri = "..")] fn readme(..)` | `fn readme_resource() -> oxmcp::Resource` (`ResourceTemplate` when the URI has `{vars}`) |
//! | `#[server] impl S { #[tool] fn add(&self, ..) }` | `fn add_tool(self: &Arc<S>) -> Tool`, and `fn tools(self: &Arc<S>) -> Vec<Tool>` (`prompts()`, `resources()`, `resource_templates()` likewise) |
//!
//! The free constructors are plain `fn() -> T`, with the function's visibility, each also recorded
//! for `Server::builder(..).discover()` (`oxmcp::discoverable!`). The generated
//! code names only `::oxmcp::...` paths, so a user needs no `serde` or `schemars` import of their
//! own for the derived input schema.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

mod attrs;
mod descriptor;
mod params;
mod prompt;
mod resource;
mod ret;
mod server;
mod tool;

/// A function as a tool. Doc comment → `description`; parameters → the input schema's
/// properties (doc comments or `#[param(description = "..")]` → their descriptions; `Option<T>`
/// → not required), or one `Args<T>` for the whole object; a `Context` parameter is passed the
/// call's context. Arguments: `name`, `title`, `description`, `read_only`, `destructive`,
/// `idempotent`, `open_world`, `icons = [..]`, `meta = {..}`, `task = "optional"|"required"`,
/// `task_after_ms`, `timeout_ms`, `max_concurrency`, `scopes = [..]`, `app = "ui://.."`,
/// `app_visibility = [..]`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr, item, tool::free)
}

/// A function as a prompt: `String` / `Option<String>` parameters are its arguments
/// (`#[param(complete = [..] | EnumType | my_fn)]` completes one).
/// Arguments: `name`, `title`, `description`, `icons = [..]`, `meta = {..}`, `scopes = [..]`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr, item, prompt::free)
}

/// A function as a resource (`uri = "scheme://..."`), or a resource template when the URI has
/// `{variables}` (its `String` parameters; `#[param(complete = [..] | EnumType | my_fn)]` completes
/// one). Arguments: `uri`, `name`, `title`, `description`, `mime_type`, `icons = [..]`,
/// `meta = {..}`, `scopes = [..]`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr, item, resource::free)
}

/// An `impl` block whose `#[tool]`, `#[prompt]` and `#[resource(uri = ..)]` methods take `&self`:
/// each gets a constructor method on `Arc<Self>`, and `tools()` / `prompts()` / `resources()` /
/// `resource_templates()` list them all.
#[proc_macro_attribute]
pub fn server(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr, item, server::expand)
}

fn expand(
    attr: TokenStream,
    item: TokenStream,
    f: fn(TokenStream2, TokenStream2) -> syn::Result<TokenStream2>,
) -> TokenStream {
    match f(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The item a free function's macro adds: its constructor, a plain `fn() -> T`. Every free
/// constructor is made here, so whatever each registration needs beside it is added once.
pub(crate) fn emit_constructor(
    vis: &syn::Visibility,
    ctor: &syn::Ident,
    ty: TokenStream2,
    kind: &str,
    what: &str,
    body: TokenStream2,
) -> TokenStream2 {
    let doc = format!("The {what} (made by its oxmcp attribute).");
    // Each free constructor is also recorded for `Server::builder(..).discover()`, with the
    // place of the attribute; a server that never discovers only carries the record.
    let kind = syn::Ident::new(kind, proc_macro2::Span::call_site());
    quote! {
        #[doc = #doc]
        #vis fn #ctor() -> #ty { #body }
        ::oxmcp::discoverable!(#kind: #ctor);
    }
}
