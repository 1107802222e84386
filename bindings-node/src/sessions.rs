//! Legacy sessions as JS sees them outside any request (the core's `SessionHandle`): the
//! listener `NativeServer.onSession(fn)` hears each client notification of a legacy session
//! (`notifications/initialized`, `notifications/roots/list_changed`, ...) with a `NativeSession`
//! that sends requests (`roots/list`, sampling, elicitation) and notifications to that client.

use crate::errors::{self, coded, mcp, Code, Result};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use oxmcp::protocol::LogLevel;
use oxmcp::{SessionHandle, SessionListener};
use serde_json::Value;

/// `(session, method, params) => void`
pub(crate) type SessionFn<'a> = Function<'a, FnArgs<(NativeSession, String, Option<Value>)>, ()>;
type SessionTsfn = ThreadsafeFunction<
    (NativeSession, String, Option<Value>),
    (),
    FnArgs<(NativeSession, String, Option<Value>)>,
    Status,
    false,
    true,
>;

pub(crate) struct JsSessionListener(pub(crate) SessionTsfn);

impl SessionListener for JsSessionListener {
    fn on_notification(&self, session: SessionHandle, method: &str, params: Option<&Value>) {
        let _ = self.0.call(
            (
                NativeSession::new(session),
                method.to_string(),
                params.cloned(),
            ),
            napi::threadsafe_function::ThreadsafeFunctionCallMode::NonBlocking,
        );
    }
}

pub(crate) fn listener(f: &SessionFn<'_>) -> Result<JsSessionListener> {
    let tsfn = f
        .build_threadsafe_function::<(NativeSession, String, Option<Value>)>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(|c| Ok(FnArgs::from(c.value)))?;
    Ok(JsSessionListener(tsfn))
}

/// One legacy session (stdio: the process; HTTP: one `Mcp-Session-Id`).
#[napi]
pub struct NativeSession {
    handle: SessionHandle,
}

impl NativeSession {
    pub(crate) fn new(handle: SessionHandle) -> Self {
        Self { handle }
    }
}

#[napi]
impl NativeSession {
    /// The `Mcp-Session-Id`, or null on stdio.
    #[napi(getter)]
    pub fn id(&self) -> Option<String> {
        self.handle.id().map(str::to_string)
    }
    #[napi(getter)]
    pub fn protocol_version(&self) -> String {
        self.handle.protocol_version().to_string()
    }
    #[napi(getter)]
    pub fn client_info(&self) -> Option<Value> {
        self.handle.client_info().cloned()
    }
    #[napi(getter)]
    pub fn client_capabilities(&self) -> Value {
        self.handle.client_capabilities().clone()
    }
    /// The session has not ended.
    #[napi]
    pub fn is_open(&self) -> bool {
        self.handle.is_open()
    }
    /// Send a notification; false when no stream to the client is open.
    #[napi]
    pub fn notify(&self, method: String, params: Option<Value>) -> bool {
        self.handle.notify(&method, params)
    }
    /// `notifications/message` through the session's log level; false when filtered or no stream.
    #[napi]
    pub fn log(&self, level: String, data: Value, logger: Option<String>) -> Result<bool> {
        let level = LogLevel::parse(&level).ok_or_else(|| {
            coded(
                Code::Napi(Status::InvalidArg),
                format!("unknown log level {level:?}"),
            )
        })?;
        Ok(self.handle.log(level, data, logger))
    }
    /// Send a request to the client and resolve with its result.
    #[napi(ts_return_type = "Promise<any>")]
    pub fn request<'env>(
        &self,
        env: &'env Env,
        method: String,
        params: Option<Value>,
    ) -> Result<PromiseRaw<'env, Value>> {
        let h = self.handle.clone();
        errors::spawn(env, async move {
            h.request(&method, params).await.map_err(|e| mcp(&e))
        })
    }
    /// Send `ping` to the client; resolves when it answers.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn ping<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        let h = self.handle.clone();
        errors::spawn(env, async move { h.ping().await.map_err(|e| mcp(&e)) })
    }
    /// Resolves when the session ends (DELETE, expiry, end of stdin) or the server stops.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn closed<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        let h = self.handle.clone();
        errors::spawn(env, async move {
            h.closed().await;
            Ok(())
        })
    }
    /// The same number for every `NativeSession` of one session while it lives.
    #[napi(getter)]
    pub fn key(&self) -> f64 {
        self.handle.key() as f64
    }
}
