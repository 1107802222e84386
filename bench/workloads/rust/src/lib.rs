//! What both Rust peers share: the data files `bench/workloads.py` writes (`WL_DATA`) and the
//! typed shape of the `orders` argument (serde checks it, as an rmcp tool's `Parameters<T>` does).

use serde::Deserialize;
use serde_json::Value;

pub struct Data {
    pub records: [(String, Value); 2],
    pub records_schema: Value,
    pub blobs: [(String, Vec<u8>); 2],
    pub texts: [(String, String); 2],
}

fn read(dir: &str, name: &str) -> Vec<u8> {
    std::fs::read(format!("{dir}/{name}")).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"))
}

impl Data {
    pub fn load() -> Data {
        let dir = std::env::var("WL_DATA").expect("WL_DATA (the data directory) is not set");
        let json = |n: &str| -> Value { serde_json::from_slice(&read(&dir, n)).expect("JSON data file") };
        let sizes = ["large", "small"];
        Data {
            records: sizes.map(|s| (format!("records_{s}"), json(&format!("records_{s}.json")))),
            records_schema: json("records_schema.json"),
            blobs: sizes.map(|s| (format!("bench://blob/{s}"), read(&dir, &format!("blob_{s}.bin")))),
            texts: sizes.map(|s| {
                let t = String::from_utf8(read(&dir, &format!("text_{s}.txt"))).expect("UTF-8 text");
                (format!("bench://text/{s}"), t)
            }),
        }
    }
}

pub fn count(name: &str) -> usize {
    std::env::var(name).ok().and_then(|n| n.parse().ok()).unwrap_or(0)
}

pub fn port() -> u16 {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == "--port").expect("--port N");
    args[i + 1].parse().expect("port number")
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrdersArgs {
    pub orders: Vec<Order>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Order {
    pub id: String,
    pub customer: Customer,
    pub items: Vec<Item>,
    pub payment: Payment,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Customer {
    pub name: String,
    pub email: String,
    pub address: Address,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    pub street: String,
    pub city: String,
    pub zip: String,
    pub country: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub sku: String,
    pub qty: u32,
    pub price: f64,
    pub tags: Vec<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Payment {
    Card { number: String, expiry: String },
    Transfer { iban: String, reference: String },
}
