//! The sizes of the futures the HTTP path moves whole on every request (see
//! docs/PERFORMANCE.md, "Request futures kept small"). Each `Box::pin` on a branch a call does not
//! take, and each `async` block in place of an `async fn`, keeps these futures small; an edit that
//! undoes one (an unboxed branch, a value held across an await) grows them by hundreds of bytes
//! or more, and fails here instead of showing only as `memmove` time in a profile.
//!
//! The bounds are for the profile the tests build in (unoptimised, so larger than the release
//! sizes docs/PERFORMANCE.md gives), with the features the test stage enables: the size measured
//! when the bound was set plus under half of what one unboxed branch adds (unboxing the client
//! message branch of `post` added 336 bytes to `post` and `handle_full`), so that small drift from
//! a toolchain or dependency update passes and an unboxed branch does not. When a bound
//! fails after an intended change, check the release sizes with `-Zprint-type-sizes` and set the
//! bound again from the size this test's failure message gives.

use super::http::HttpHandler;
use super::http_config::HttpConfig;
use super::http_message::HttpRequest;
use crate::jsonrpc;
use crate::protocol::Method;
use crate::server::{Env, Server, Transport};
use http::{HeaderMap, Method as HttpMethod};
use std::mem::size_of_val;

fn check(what: &str, size: usize, bound: usize) {
    assert!(
        size <= bound,
        "{what}'s future is {size} bytes, above its bound of {bound}"
    );
}

#[test]
fn the_request_futures_stay_under_their_bounds() {
    let server = Server::builder("sizes", "1").build().unwrap();
    let handler = HttpHandler::new(server.clone(), HttpConfig::mount());
    let req = || HttpRequest {
        method: HttpMethod::POST,
        path: "/mcp".into(),
        headers: HeaderMap::new(),
        body: bytes::Bytes::new(),
    };
    // Built, never polled: a future's size is fixed when it is made.
    let full = handler.handle_full(req(), None, "");
    check("HttpHandler::handle_full", size_of_val(&full), HANDLE_FULL);
    let post = handler.post(req(), None, None, "");
    check("HttpHandler::post", size_of_val(&post), POST);
    let env = Env::new(Transport::Http);
    let rq = jsonrpc::Request {
        id: serde_json::json!(1),
        method: Method::ToolsCall,
        params: None,
        meta: None,
    };
    let call = server.request_with_status(rq, &env);
    check(
        "Server::request_with_status",
        size_of_val(&call),
        REQUEST_WITH_STATUS,
    );
}

// Measured 2,792 / 1,584 / 408 bytes (debug, the test stage's features, Rust 1.9x, 2026-12-07).
const HANDLE_FULL: usize = 2_944;
const POST: usize = 1_728;
const REQUEST_WITH_STATUS: usize = 512;
