//! Client request builders for every A2A method, both versions, both bindings.

mod method;

pub use method::{HttpMethod, Method, RestRoute};
