//! The reference agent's task store: every task it made, with its history, its artifacts
//! and the log of the events it went through, in memory. Readers can replay a task's events
//! from any point and wait for the next one (SubscribeToTask follows a task live this way).
//! One job: keep tasks and answer questions about them; what the agent does with a message
//! is in [`super::agent`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use a2a_core::model::{
    Artifact, ListTasksResponse, Message, StreamEvent, Task, TaskState, TaskStatus,
};

/// The most tasks kept; past it the least recently updated are forgotten (bounded memory for
/// a long-running `--serve`).
const MAX_TASKS: usize = 10_000;
/// The most events one task's log keeps (the scripted tasks make at most about 60).
const MAX_EVENTS: usize = 1_000;
/// ListTasks' page size when the request names none (the spec's default).
pub const DEFAULT_PAGE_SIZE: i32 = 50;

/// One stored task.
struct Entry {
    task: Task<'static>,
    /// Every event of the task in order; the first is the task as it was created.
    events: Vec<StreamEvent<'static>>,
    /// When the status last changed, milliseconds since the Unix epoch.
    status_ms: i64,
    /// A store-wide counter at the last status change: the ListTasks order and cursor.
    seq: u64,
    /// Events held back until someone subscribes (the `drop` script's second half).
    pending: Vec<StreamEvent<'static>>,
}

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    seq: u64,
    next_id: u64,
}

/// Why a task could not be changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No such task.
    NotFound,
    /// The task is in this state, which does not allow the change.
    State(TaskState),
}

/// What ListTasks asks for, already validated by the core.
#[derive(Debug, Default, Clone)]
pub struct ListQuery {
    /// Only this context.
    pub context_id: Option<String>,
    /// Only this state.
    pub status: Option<TaskState>,
    /// Only tasks whose status changed at or after this time (ms since the epoch).
    pub status_after_ms: Option<i64>,
    /// Tasks per page (1..=100).
    pub page_size: i32,
    /// The previous page's `nextPageToken`.
    pub page_token: Option<String>,
    /// History messages per task.
    pub history_length: Option<i32>,
    /// Whether artifacts are included.
    pub include_artifacts: bool,
}

/// The in-memory store.
#[derive(Default)]
pub struct Store {
    inner: Mutex<Inner>,
    changed: Condvar,
}

/// Now as milliseconds since the Unix epoch and as an RFC 3339 timestamp.
fn now() -> (i64, String) {
    let ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    let stamp = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned());
    (ms, stamp)
}

/// The last `n` messages of `history` (all when `n` is `None`).
fn trim_history(task: &mut Task<'static>, n: Option<i32>) {
    if let Some(n) = n {
        let keep = usize::try_from(n).unwrap_or(0);
        let len = task.history.len();
        if len > keep {
            task.history.drain(..len - keep);
        }
    }
}

/// Whether a stream that reached `state` ends there: terminal states and the interrupted
/// ones (input-required, auth-required), where the agent waits for the client.
pub fn ends_stream(state: TaskState) -> bool {
    state.is_terminal() || matches!(state, TaskState::InputRequired | TaskState::AuthRequired)
}

impl Store {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates a task for `message` (its first history entry), in `submitted`, in
    /// `context_id` or a new context. Returns the task id.
    pub fn create(&self, message: Message<'static>) -> (String, String) {
        let mut inner = self.lock();
        inner.next_id += 1;
        let n = inner.next_id;
        let id = format!("t-{n}");
        let ctx = message
            .context_id
            .as_deref()
            .filter(|c| !c.is_empty())
            .map_or_else(|| format!("c-{n}"), str::to_owned);
        let mut message = message;
        message.task_id = Some(Cow::Owned(id.clone()));
        message.context_id = Some(Cow::Owned(ctx.clone()));
        let (ms, stamp) = now();
        let mut status = TaskStatus::new(TaskState::Submitted);
        status.timestamp = Some(Cow::Owned(stamp));
        let task = Task {
            id: Cow::Owned(id.clone()),
            context_id: Cow::Owned(ctx.clone()),
            status,
            artifacts: Vec::new(),
            history: vec![message],
            metadata: None,
        };
        if inner.tasks.len() >= MAX_TASKS {
            let mut by_age: Vec<(u64, String)> = inner
                .tasks
                .iter()
                .map(|(k, e)| (e.seq, k.clone()))
                .collect();
            by_age.sort_unstable();
            for (_, k) in by_age.iter().take(MAX_TASKS / 2) {
                inner.tasks.remove(k);
            }
        }
        inner.seq += 1;
        let seq = inner.seq;
        inner.tasks.insert(
            id.clone(),
            Entry {
                events: vec![StreamEvent::Task(task.clone())],
                task,
                status_ms: ms,
                seq,
                pending: Vec::new(),
            },
        );
        drop(inner);
        self.changed.notify_all();
        (id, ctx)
    }

    /// Adds a follow-up `message` to task `id`, which must not be in a terminal state.
    /// Returns the task's context.
    pub fn add_message(&self, id: &str, message: Message<'static>) -> Result<String, Refusal> {
        let mut inner = self.lock();
        let e = inner.tasks.get_mut(id).ok_or(Refusal::NotFound)?;
        let state = e.task.status.state;
        if state.is_terminal() {
            return Err(Refusal::State(state));
        }
        let mut message = message;
        message.task_id = Some(Cow::Owned(id.to_owned()));
        message.context_id = Some(e.task.context_id.clone());
        e.task.history.push(message);
        Ok(e.task.context_id.to_string())
    }

    /// Records `event` for its task: the task changes accordingly (status, history,
    /// artifacts) and waiting readers wake up. An event for a forgotten task is dropped.
    pub fn push(&self, mut event: StreamEvent<'static>) {
        let mut inner = self.lock();
        inner.seq += 1;
        let seq = inner.seq;
        let id = match &event {
            StreamEvent::StatusUpdate(u) => u.task_id.to_string(),
            StreamEvent::ArtifactUpdate(a) => a.task_id.to_string(),
            StreamEvent::Task(t) => t.id.to_string(),
            StreamEvent::Message(_) => return,
        };
        let Some(e) = inner.tasks.get_mut(&id) else {
            return;
        };
        match &mut event {
            StreamEvent::StatusUpdate(u) => {
                let (ms, stamp) = now();
                u.status.timestamp = Some(Cow::Owned(stamp));
                u.is_final = ends_stream(u.status.state);
                e.status_ms = ms;
                e.seq = seq;
                if let Some(m) = &u.status.message {
                    e.task.history.push((**m).clone());
                }
                e.task.status = u.status.clone();
            }
            StreamEvent::ArtifactUpdate(a) => {
                merge_artifact(&mut e.task.artifacts, a.append, &a.artifact)
            }
            StreamEvent::Task(t) => e.task = t.clone(),
            StreamEvent::Message(_) => {}
        }
        if e.events.len() < MAX_EVENTS {
            e.events.push(event);
        }
        drop(inner);
        self.changed.notify_all();
    }

    /// Holds `events` back for task `id` until [`Store::release_pending`].
    pub fn hold(&self, id: &str, events: Vec<StreamEvent<'static>>) {
        if let Some(e) = self.lock().tasks.get_mut(id) {
            e.pending = events;
        }
    }

    /// The events held back for task `id` (now released to the caller).
    pub fn release_pending(&self, id: &str) -> Vec<StreamEvent<'static>> {
        self.lock()
            .tasks
            .get_mut(id)
            .map(|e| std::mem::take(&mut e.pending))
            .unwrap_or_default()
    }

    /// The task now, with at most `history_length` history messages.
    pub fn get(&self, id: &str, history_length: Option<i32>) -> Option<Task<'static>> {
        let mut task = self.lock().tasks.get(id)?.task.clone();
        trim_history(&mut task, history_length);
        Some(task)
    }

    /// The task's state, if it exists.
    pub fn state(&self, id: &str) -> Option<TaskState> {
        self.lock().tasks.get(id).map(|e| e.task.status.state)
    }

    /// Cancels task `id` when it is not yet in a terminal state; returns the canceled task.
    pub fn cancel(&self, id: &str, reason: Message<'static>) -> Result<Task<'static>, Refusal> {
        let (ctx, state) = {
            let inner = self.lock();
            let e = inner.tasks.get(id).ok_or(Refusal::NotFound)?;
            (e.task.context_id.to_string(), e.task.status.state)
        };
        if state.is_terminal() {
            return Err(Refusal::State(state));
        }
        let mut status = TaskStatus::new(TaskState::Canceled);
        status.message = Some(Box::new(reason));
        self.push(StreamEvent::StatusUpdate(
            a2a_core::model::TaskStatusUpdateEvent {
                task_id: Cow::Owned(id.to_owned()),
                context_id: Cow::Owned(ctx),
                status,
                is_final: true,
                metadata: None,
            },
        ));
        self.get(id, None).ok_or(Refusal::NotFound)
    }

    /// Events of task `id` from index `from` on, or `None` when the task does not exist.
    pub fn events_from(&self, id: &str, from: usize) -> Option<Vec<StreamEvent<'static>>> {
        let inner = self.lock();
        let e = inner.tasks.get(id)?;
        Some(e.events.get(from..).map(<[_]>::to_vec).unwrap_or_default())
    }

    /// Waits until task `id` has more than `seen` events or `limit` passes.
    pub fn wait_past(&self, id: &str, seen: usize, limit: Duration) {
        let inner = self.lock();
        let _ = self.changed.wait_timeout_while(inner, limit, |i| {
            i.tasks.get(id).is_some_and(|e| e.events.len() <= seen)
        });
    }

    /// One page of tasks, newest status change first. `Err` when the page token is not one
    /// this store wrote.
    pub fn list(&self, q: &ListQuery) -> Result<ListTasksResponse<'static>, &'static str> {
        let before = match q.page_token.as_deref().filter(|t| !t.is_empty()) {
            None => u64::MAX,
            Some(t) => t
                .parse::<u64>()
                .map_err(|_| "is not a page token this agent wrote")?,
        };
        let inner = self.lock();
        let mut hits: Vec<&Entry> = inner
            .tasks
            .values()
            .filter(|e| {
                q.context_id
                    .as_deref()
                    .is_none_or(|c| e.task.context_id == c)
            })
            .filter(|e| q.status.is_none_or(|s| e.task.status.state == s))
            .filter(|e| q.status_after_ms.is_none_or(|t| e.status_ms >= t))
            .collect();
        let total = hits.len();
        hits.sort_unstable_by_key(|e| std::cmp::Reverse(e.seq));
        let size = usize::try_from(q.page_size).unwrap_or(1).max(1);
        let page: Vec<&Entry> = hits
            .into_iter()
            .filter(|e| e.seq < before)
            .take(size + 1)
            .collect();
        let next = if page.len() > size {
            page[size - 1].seq.to_string()
        } else {
            String::new()
        };
        let tasks: Vec<Task<'static>> = page
            .into_iter()
            .take(size)
            .map(|e| {
                let mut t = e.task.clone();
                trim_history(&mut t, q.history_length);
                if !q.include_artifacts {
                    t.artifacts.clear();
                }
                t
            })
            .collect();
        Ok(ListTasksResponse {
            next_page_token: Cow::Owned(next),
            // The size of this page, as the official SDKs answer (a last page is short).
            page_size: i32::try_from(tasks.len()).unwrap_or(i32::MAX),
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
            tasks,
        })
    }
}

/// Applies an artifact update: appended parts join the artifact of the same id, otherwise
/// the artifact is added (or replaces the one of the same id).
fn merge_artifact(artifacts: &mut Vec<Artifact<'static>>, append: bool, a: &Artifact<'static>) {
    match artifacts
        .iter_mut()
        .find(|x| x.artifact_id == a.artifact_id)
    {
        Some(x) if append => x.parts.extend(a.parts.iter().cloned()),
        Some(x) => *x = a.clone(),
        None => artifacts.push(a.clone()),
    }
}
