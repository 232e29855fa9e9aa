//! Test servers that speak HTTP on 127.0.0.1, for the engine's and the app's tests.
//!
//! Owns only test infrastructure: a tiny HTTP/1.1 server ([`server`]) that records every
//! request and lets a handler control every byte and pause of the response (including
//! resets and stalls), and on top of it the fixture replay server ([`fixtures`]) and a
//! scriptable fake provider speaking all four wire formats ([`fake`], also the
//! `lango-fake-provider` binary). Nothing in the product may depend on this crate.

pub mod fake;
pub mod fixtures;
pub mod server;

pub use fake::{FakeProvider, Script, Turn, Wire};
pub use fixtures::{fixtures_dir, FixtureServer};
pub use server::{Action, RecordedRequest, Reply, TestServer};
