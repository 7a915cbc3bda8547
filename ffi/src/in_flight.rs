//! What `a2a_call_run` keeps in an `a2a_call` between runs (feature `driver`): the native
//! transport's open response body of a stream. Its own file so that the call (`machine.rs`)
//! can hold it and drop it without depending on the loop (`machine_run.rs`), which depends
//! on the call.

use a2a::client::RequestId;
use a2a::driver::RawStream;

/// The native transport's request in flight between runs: a stream's open body.
#[derive(Default)]
pub(crate) struct InFlight {
    pub(crate) body: Option<(RequestId, RawStream)>,
}

impl InFlight {
    /// Drops (closes) the body of request `id`, if it is the one held.
    pub(crate) fn drop_request(&mut self, id: RequestId) {
        if self.body.as_ref().is_some_and(|(b, _)| *b == id) {
            self.body = None;
        }
    }
}
