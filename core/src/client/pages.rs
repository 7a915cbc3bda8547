//! Listing tasks page by page ([`TaskPages`]): the `ListTasks` call of each page, and the
//! page read from the call's result. Each page is its own [`super::UnaryCall`].

use std::borrow::Cow;

use super::{Call, CallResult, Target};
use crate::model::params::ListTasksParams;
use crate::model::{ListTasksResponse, WireForm};
use crate::version::Binding;

/// The most pages one listing follows (a server that never stops is cut here).
pub const MAX_PAGES: u32 = 10_000;

/// Why a page could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PageError {
    /// The call did not succeed; its outcome says why.
    #[error("the ListTasks call did not succeed ({0})")]
    NotSuccess(&'static str),
    /// The result is not a task list.
    #[error("the task list could not be read: {0}")]
    Unreadable(String),
    /// The server handed back a page token already followed (it would list forever).
    #[error("the server repeated the page token {0:?}")]
    RepeatedToken(String),
    /// More than [`MAX_PAGES`] pages.
    #[error("more than {MAX_PAGES} pages")]
    TooManyPages,
}

/// A listing of tasks: [`TaskPages::next_call`] gives the call of the next page,
/// [`TaskPages::read_page`] reads a finished call's page and moves the cursor on.
#[derive(Debug, Clone)]
pub struct TaskPages {
    params: ListTasksParams<'static>,
    /// Tokens followed so far (a repeat is refused).
    seen: Vec<String>,
    pages: u32,
    done: bool,
}

impl TaskPages {
    /// A listing with `params` (filters, page size); its page token, if any, is the first.
    pub fn new(params: ListTasksParams<'static>) -> TaskPages {
        TaskPages {
            params,
            seen: Vec::new(),
            pages: 0,
            done: false,
        }
    }

    /// The `ListTasks` call of the next page; `None` after the last page (or an error).
    pub fn next_call(&self) -> Option<Call<'static>> {
        (!self.done).then(|| Call::ListTasks(self.params.clone()))
    }

    /// Reads the page a `ListTasks` call returned (borrowing from its response body) and
    /// moves on: an empty `nextPageToken` was the last page.
    ///
    /// # Errors
    /// [`PageError`]; the listing is over after one.
    pub fn read_page<'r>(
        &mut self,
        result: &'r CallResult,
        target: &Target,
    ) -> Result<ListTasksResponse<'r>, PageError> {
        let page = read(result, target);
        let page = match page {
            Ok(p) => p,
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        };
        self.pages += 1;
        let token = page.next_page_token.as_ref();
        if token.is_empty() {
            self.done = true;
        } else if self.seen.iter().any(|t| t == token) {
            self.done = true;
            return Err(PageError::RepeatedToken(token.to_owned()));
        } else if self.pages >= MAX_PAGES {
            self.done = true;
            return Err(PageError::TooManyPages);
        } else {
            self.seen.push(token.to_owned());
            self.params.page_token = Some(Cow::Owned(token.to_owned()));
        }
        Ok(page)
    }

    /// Whether the last page has been read (or the listing failed).
    pub fn is_done(&self) -> bool {
        self.done
    }
}

/// The task list in a successful call's response: the JSON-RPC `result`, or the body.
fn read<'r>(result: &'r CallResult, target: &Target) -> Result<ListTasksResponse<'r>, PageError> {
    if !result.outcome.is_success() {
        return Err(PageError::NotSuccess(result.outcome.channel.as_str()));
    }
    let Some(response) = &result.response else {
        return Err(PageError::Unreadable("no response".to_owned()));
    };
    let unreadable = |e: &dyn std::fmt::Display| PageError::Unreadable(e.to_string());
    let form = WireForm::new(target.version, target.binding);
    let json: &[u8] = if target.binding == Binding::JsonRpc {
        #[derive(serde::Deserialize)]
        struct Envelope<'a> {
            #[serde(borrow)]
            result: Option<&'a serde_json::value::RawValue>,
        }
        let env: Envelope<'_> =
            serde_json::from_slice(&response.body).map_err(|e| unreadable(&e))?;
        env.result
            .ok_or_else(|| PageError::Unreadable("no result".to_owned()))?
            .get()
            .as_bytes()
    } else {
        &response.body
    };
    crate::model::from_slice(json, form).map_err(|e| unreadable(&e))
}
