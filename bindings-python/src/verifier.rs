//! The host's token verifier (`MCPServer(token_verifier=...)`) as the core's
//! [`HostVerifier`]: the token goes to the Python entry on the server's asyncio loop, its
//! answer (the grant as a dict, or None) comes back as JSON. The core decides what it grants.

use crate::convert::{outcome, Outcome};
use crate::engine::Engine;
use oxmcp::auth::{AuthFuture, HostVerifier};
use pyo3::prelude::*;
use pyo3::types::PyCFunction;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

pub(crate) struct PyVerifier {
    /// `async entry(token, None) -> ("ok", dict | None)`
    pub(crate) entry: Arc<Py<PyAny>>,
    pub(crate) engine: Arc<Engine>,
    /// `oxmcp._runtime.submit`
    pub(crate) submit: Arc<Py<PyAny>>,
}

impl HostVerifier for PyVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> AuthFuture<'a, Result<Option<Value>, String>> {
        let (tx, rx) = oneshot::channel::<Outcome>();
        let (entry, submit, engine) =
            (self.entry.clone(), self.submit.clone(), self.engine.clone());
        let token = token.to_string();
        let sent = self.engine.dispatch(Box::new(move |py| {
            let tx = Mutex::new(Some(tx));
            let r = (|| -> PyResult<()> {
                let lp = engine
                    .event_loop(py)
                    .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("no asyncio loop"))?;
                let done = PyCFunction::new_closure(
                    py,
                    None,
                    None,
                    move |args: &Bound<'_, pyo3::types::PyTuple>, _kw| -> PyResult<()> {
                        let o = outcome(&args.get_item(0)?, false);
                        if let Some(tx) = tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
                            let _ = tx.send(o);
                        }
                        Ok(())
                    },
                )?;
                submit
                    .bind(py)
                    .call1((lp, entry.bind(py), token, py.None(), done))?;
                Ok(())
            })();
            if let Err(e) = r {
                e.print(py);
            }
        }));
        Box::pin(async move {
            if !sent {
                return Err("the Python worker pool is stopped".into());
            }
            match rx.await {
                Ok(Outcome::Ok(v)) => Ok((!v.is_null()).then_some(v)),
                Ok(Outcome::Err(e)) => Err(format!("{e:?}")),
                Ok(_) => Err("the verifier gave an unusable answer".into()),
                Err(_) => Err("the verifier did not answer".into()),
            }
        })
    }
}
