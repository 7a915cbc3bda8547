//! Writes one agent card with `a2a_core::server::CardBuilder` (a 1.0 JSON-RPC interface, then
//! 0.3 JSON-RPC and 0.3 HTTP+JSON interfaces) and prints it. `tests/python/test_card_sdk.py`
//! reads it with the Python a2a-sdk's own card types: the 1.0 client's card parser and the
//! 0.3 compat model.

use a2a_core::server::{CardBuilder, CardSkill};
use a2a_core::version::{Binding, ProtocolVersion};

fn main() {
    let mut skill = CardSkill::new("book", "Book", "Books a seat", &["travel"]);
    skill.examples = vec!["book seat 12A".to_owned()];
    let card = CardBuilder::new("booking", "Books seats on flights", "1.2.0")
        .interface(
            "http://127.0.0.1:8080/a2a",
            ProtocolVersion::V1_0,
            Binding::JsonRpc,
        )
        .interface(
            "http://127.0.0.1:8080/a2a/v03",
            ProtocolVersion::V0_3,
            Binding::JsonRpc,
        )
        .interface(
            "http://127.0.0.1:8080/rest/v03",
            ProtocolVersion::V0_3,
            Binding::HttpJson,
        )
        .streaming(true)
        .skill(skill)
        .to_json()
        .expect("a valid card");
    println!("{card}");
}
