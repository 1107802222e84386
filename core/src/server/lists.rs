//! The list methods (`tools/list`, `resources/list`, `resources/templates/list`,
//! `prompts/list`): what a caller may see, a page of it with each definition's digest, and the
//! catalog of the whole ([`super::catalog`]).

use super::catalog::{with_digest, KindCatalog};
use super::dispatch::{Outcome, RequestInfo};
use super::env::Env;
use super::registry::{CatalogKind as Ck, RenderedKind as Rk};
use super::{Registry, Server};
use crate::jsonrpc::Params;
use crate::protocol::Era;
use std::sync::Arc;

impl Server {
    pub(super) fn tools_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let modern = rq.era == Era::Modern;
        if let Some(ts) = &self.inner.options.tool_search {
            return self.search_list(rq, params, env, reg, ts);
        }
        let cat = reg.rendered.catalog(Ck::Tools, modern, || {
            let defs = reg.tools.values().map(|t| (t.descriptor(modern), true));
            KindCatalog::build(defs, self.inner.options.catalog_signing_key.as_ref())
        });
        let all = reg.tools.values();
        let shown = |t: &&Arc<crate::tool::ToolEntry>| self.lists_tool(env, t);
        self.cataloged(rq, params, env, &cat, all, shown, "tools", |lm| {
            self.rendered(rq, params, env, reg, Rk::Tools, || {
                let v = reg.tools.values().enumerate().filter(|(_, t)| shown(t));
                let render = |(i, t): (usize, &Arc<crate::tool::ToolEntry>)| {
                    with_digest(t.descriptor(modern), cat.digest(i))
                };
                self.list(rq, params, v, render, "tools", lm.map())
            })
        })
    }

    pub(super) fn resources_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let modern = rq.era == Era::Modern;
        let shown = |(k, r): &(&str, &Arc<crate::resource::ResourceEntry>)| {
            r.listed
                && self.may_use(env, "resource", k)
                && self.in_scope_listing(env, &r.required_scopes)
        };
        let cat = reg.rendered.catalog(Ck::Resources, modern, || {
            let defs = reg.resources.values().map(|r| (r.def.clone(), r.listed));
            KindCatalog::build(defs, self.inner.options.catalog_signing_key.as_ref())
        });
        let all = reg.resources.iter();
        self.cataloged(rq, params, env, &cat, all, shown, "resources", |lm| {
            self.rendered(rq, params, env, reg, Rk::Resources, || {
                let v = reg.resources.iter().enumerate().filter(|(_, e)| shown(e));
                let render =
                    |(i, (_, r)): (usize, (&str, &Arc<crate::resource::ResourceEntry>))| {
                        with_digest(r.def.clone(), cat.digest(i))
                    };
                self.list(rq, params, v, render, "resources", lm.map())
            })
        })
    }

    pub(super) fn templates_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let modern = rq.era == Era::Modern;
        let shown = |(k, t): &(&str, &Arc<crate::resource::TemplateEntry>)| {
            t.listed
                && self.may_use(env, "resource", k)
                && self.in_scope_listing(env, &t.required_scopes)
        };
        let cat = reg.rendered.catalog(Ck::Templates, modern, || {
            let defs = reg.templates.values().map(|t| (t.def.clone(), t.listed));
            KindCatalog::build(defs, self.inner.options.catalog_signing_key.as_ref())
        });
        let all = reg.templates.iter();
        let key = "resourceTemplates";
        self.cataloged(rq, params, env, &cat, all, shown, key, |lm| {
            self.rendered(rq, params, env, reg, Rk::Templates, || {
                let v = reg.templates.iter().enumerate().filter(|(_, e)| shown(e));
                let render =
                    |(i, (_, t)): (usize, (&str, &Arc<crate::resource::TemplateEntry>))| {
                        with_digest(t.def.clone(), cat.digest(i))
                    };
                self.list(rq, params, v, render, key, lm.map())
            })
        })
    }

    pub(super) fn prompts_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let modern = rq.era == Era::Modern;
        let shown = |(k, p): &(&str, &Arc<crate::prompt::PromptEntry>)| {
            self.may_use(env, "prompt", k) && self.in_scope_listing(env, &p.required_scopes)
        };
        let cat = reg.rendered.catalog(Ck::Prompts, modern, || {
            let defs = reg.prompts.values().map(|p| (p.def.clone(), true));
            KindCatalog::build(defs, self.inner.options.catalog_signing_key.as_ref())
        });
        let all = reg.prompts.iter();
        self.cataloged(rq, params, env, &cat, all, shown, "prompts", |lm| {
            self.rendered(rq, params, env, reg, Rk::Prompts, || {
                let v = reg.prompts.iter().enumerate().filter(|(_, e)| shown(e));
                let render = |(i, (_, p)): (usize, (&str, &Arc<crate::prompt::PromptEntry>))| {
                    with_digest(p.def.clone(), cat.digest(i))
                };
                self.list(rq, params, v, render, "prompts", lm.map())
            })
        })
    }
}
