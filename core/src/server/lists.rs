//! The list methods (`tools/list`, `resources/list`, `resources/templates/list`,
//! `prompts/list`, and `skills/list` through [`Server::kind_list`]): what a caller may see, a page
//! of it with each definition's digest, and the catalog of the whole ([`super::catalog`]).

use super::catalog::KindCatalog;
use super::dispatch::{Outcome, RequestInfo};
use super::env::Env;
use super::registry::{CatalogKind as Ck, RenderedKind as Rk};
use super::{Registry, Server};
use crate::jsonrpc::Params;
use crate::protocol::Era;
use serde_json::Value;

impl Server {
    pub(super) fn tools_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        if let Some(ts) = &self.inner.options.tool_search {
            return self.search_list(rq, params, env, reg, ts);
        }
        let modern = rq.era == Era::Modern;
        self.kind_list(
            (rq, params, env, reg),
            (Ck::Tools, Some(Rk::Tools), "tools"),
            || reg.tools.values(),
            |t| t.descriptor(modern),
            |_| true,
            |t| self.lists_tool(env, t),
        )
    }

    pub(super) fn resources_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        self.kind_list(
            (rq, params, env, reg),
            (Ck::Resources, Some(Rk::Resources), "resources"),
            || reg.resources.iter(),
            |(_, r)| r.def.clone(),
            |(_, r)| r.listed,
            |(k, r)| {
                r.listed
                    && self.may_use(env, "resource", k)
                    && self.in_scope_listing(env, &r.required_scopes)
            },
        )
    }

    pub(super) fn templates_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        self.kind_list(
            (rq, params, env, reg),
            (Ck::Templates, Some(Rk::Templates), "resourceTemplates"),
            || reg.templates.iter(),
            |(_, t)| t.def.clone(),
            |(_, t)| t.listed,
            |(k, t)| {
                t.listed
                    && self.may_use(env, "resource", k)
                    && self.in_scope_listing(env, &t.required_scopes)
            },
        )
    }

    pub(super) fn prompts_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        self.kind_list(
            (rq, params, env, reg),
            (Ck::Prompts, Some(Rk::Prompts), "prompts"),
            || reg.prompts.iter(),
            |(_, p)| p.def.clone(),
            |_| true,
            |(k, p)| {
                self.may_use(env, "prompt", k) && self.in_scope_listing(env, &p.required_scopes)
            },
        )
    }

    /// One kind's list. `kind`: its catalog, its rendered-page cache (if its pages are kept)
    /// and its result key; `entries` walks the kind in registration order, `def` gives an entry's
    /// definition as listed, `open` whether a caller without an identity sees it (that caller's
    /// catalog is kept with the kind's), `shown` whether this caller does. The catalog is built
    /// once per registry version; the page carries each shown definition with its digest.
    pub(super) fn kind_list<T: Copy, I: Iterator<Item = T>>(
        &self,
        (rq, params, env, reg): (&RequestInfo, &Params, &Env, &Registry),
        (ck, rk, key): (Ck, Option<Rk>, &str),
        entries: impl Fn() -> I,
        def: impl Fn(T) -> Value,
        open: impl Fn(T) -> bool,
        shown: impl Fn(T) -> bool,
    ) -> Outcome {
        let cat = reg.rendered.catalog(ck, rq.era == Era::Modern, || {
            let defs = entries().map(|t| (def(t), open(t)));
            KindCatalog::build(defs, self.inner.options.catalog_signing_key.as_ref())
        });
        self.cataloged(
            rq,
            params,
            env,
            &cat,
            entries(),
            |t| shown(*t),
            key,
            |lm| {
                let page = || {
                    let v = entries().enumerate().filter(|(_, t)| shown(*t));
                    let render = |(i, t): (usize, T)| lm.with_digest(def(t), || cat.digest(i));
                    self.list(rq, params, v, render, key, lm.map())
                };
                match rk {
                    Some(rk) => self.rendered(rq, params, env, reg, rk, page),
                    None => page(),
                }
            },
        )
    }
}
