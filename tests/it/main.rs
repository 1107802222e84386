//! Integration tests: the real example binaries over real HTTP on 127.0.0.1 and real stdio pipes.

mod auth_env;
mod harness;
mod hostile;
mod http_modern;
