//! A real `redis-server` for the tests: its own process on a free loopback port, no persistence,
//! killed when dropped. Missing `redis-server` fails the test (never skips it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) struct RedisServer {
    child: Option<Child>,
    pub(crate) port: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

impl RedisServer {
    pub(crate) fn start() -> Self {
        let mut s = Self {
            child: None,
            port: free_port(),
        };
        s.restart();
        s
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Start (again, on the same port) and wait until it answers PING.
    pub(crate) fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run redis-server ({e}): `bash scripts/setup.sh` installs it (apt-get install redis-server)")
            });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(mut c) = TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = c.set_read_timeout(Some(Duration::from_millis(500)));
                let mut buf = [0u8; 16];
                if c.write_all(b"PING\r\n").is_ok()
                    && c.read(&mut buf)
                        .is_ok_and(|n| buf[..n].starts_with(b"+PONG"))
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "redis-server on port {} did not answer PING within 10 s",
            self.port
        );
    }

    /// Kill it (the port stays ours for `restart`).
    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Wait until `f` is true (polling), at most 10 s.
pub(crate) async fn eventually(mut f: impl AsyncFnMut() -> bool) {
    for _ in 0..200 {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("not within 10 s");
}
