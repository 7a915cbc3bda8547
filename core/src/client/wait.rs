//! Waiting for a task to settle ([`TaskWait`]): after a send with `returnImmediately` (or a
//! stream that could not be resumed), poll the task with `GetTask` at a bounded, growing
//! interval inside a total deadline, and stop at a terminal state (completed, failed,
//! canceled, rejected) or an interrupted one (input-required, auth-required: the caller
//! must act). Each poll is its own [`super::UnaryCall`], so it has the call timeout, the
//! breaker, the hooks and the tally of any call; this planner only says which call to make
//! next and when, in the shape of [`super::TaskPages`].
//!
//! [`TaskWait::after_stream`] is the fallback from a stream: it decides from a stream's
//! final outcome whether the task is still to be waited for (the stream was cut and could
//! not be resumed: resubscribes spent, a resubscribe refused as `UnsupportedOperation` or by
//! the capability check, the one `GetTask` after it still unsettled, or the stream ended
//! with a state it does not know) and, if so, plans the polls within the time left.
//!
//! A poll that fails for a reason a later poll may not share (the transport, a 5xx, a 429,
//! a malformed body) is tried again at the next interval: `GetTask` reads, it never
//! changes the task. A failure that will not change (a protocol error such as
//! TaskNotFound, a 4xx, refused credentials) ends the wait with that poll's outcome.

use std::borrow::Cow;

use super::Call;
use crate::model::params::GetTaskParams;
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};
use crate::time::Millis;

/// How a [`TaskWait`] paces its polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitConfig {
    /// The delay before the second poll (the first goes out at once).
    pub first_interval: Millis,
    /// The longest delay between two polls; each delay is 1.5 times the one before, up
    /// to this.
    pub max_interval: Millis,
    /// The whole wait, counted from [`TaskWait::new`]: no poll starts after it.
    pub max_time: Millis,
}

impl Default for WaitConfig {
    /// 500 ms, then growing to at most 5 s between polls, for at most 10 minutes.
    fn default() -> WaitConfig {
        WaitConfig {
            first_interval: Millis(500),
            max_interval: Millis(5_000),
            max_time: Millis(600_000),
        }
    }
}

/// What the host does after a poll ([`TaskWait::read`]).
///
/// Exhaustive on purpose: the host must take every step (a new one would be ignored and the
/// wait would stall).
#[derive(Debug, Clone, PartialEq)]
pub enum WaitStep {
    /// Start the next poll ([`TaskWait::poll_call`]) at this time on the host's clock.
    PollAt(Millis),
    /// The wait is over and the poll just read is its result: the task settled (a terminal
    /// or interrupted state), or the poll failed in a way another poll would not change.
    Done,
    /// The deadline came first; report this outcome (`transport`/`Timeout`, naming the
    /// task and its last state), the last poll's answer beside it.
    GaveUp(Box<Outcome>),
}

/// The plan of waiting for one task: which call to make ([`TaskWait::poll_call`]), then
/// what each finished poll means ([`TaskWait::read`]).
#[derive(Debug, Clone)]
pub struct TaskWait {
    task_id: String,
    history_length: Option<i32>,
    config: WaitConfig,
    started: Millis,
    interval: Millis,
    polls: u32,
    /// Whether the poll just before the deadline was scheduled.
    last_poll: bool,
}

/// How long before the deadline the last poll starts (time for it to be answered).
const LAST_POLL_LEAD: Millis = Millis(250);

impl TaskWait {
    /// A wait for `task_id` starting at `now`, each poll asking for `history_length`
    /// history messages (`None`: the agent's default).
    pub fn new(
        task_id: &str,
        history_length: Option<i32>,
        config: WaitConfig,
        now: Millis,
    ) -> TaskWait {
        TaskWait {
            task_id: task_id.to_owned(),
            history_length,
            interval: config.first_interval,
            config,
            started: now,
            polls: 0,
            last_poll: false,
        }
    }

    /// The wait that continues a stream whose final outcome is `stream_outcome`, or `None`
    /// when the stream's result stands: the task settled (a terminal or interrupted
    /// state), no task id is known (nothing to poll), the outcome is a lasting failure (a
    /// protocol error such as `TaskNotFound`, an http refusal, a transport failure advised
    /// `never` other than a refused resubscribe), or no time is left (`config.max_time`
    /// is 0: give it what remains of the caller's deadline). A stream that ended with a
    /// task still submitted or working, or in a state this client does not know, a cut
    /// stream whose resubscribes are spent or refused, all continue as a poll loop.
    pub fn after_stream(
        stream_outcome: &Outcome,
        history_length: Option<i32>,
        config: WaitConfig,
        now: Millis,
    ) -> Option<TaskWait> {
        use crate::outcome::Channel;
        let o = stream_outcome;
        let task_id = o.task_id.as_deref()?;
        if o.state
            .is_some_and(|s| s.is_terminal() || s.is_interrupted())
            || config.max_time == Millis(0)
        {
            return None;
        }
        let unsettled = match o.channel {
            Channel::Task => true,
            Channel::Transport => {
                o.retry != RetryAdvice::Never || o.error == Some(ErrorName::CapabilityNotDeclared)
            }
            Channel::Protocol => o.error == Some(ErrorName::UnsupportedOperation),
            Channel::Http | Channel::Message | Channel::Malformed => false,
        };
        unsettled.then(|| TaskWait::new(task_id, history_length, config, now))
    }

    /// The `GetTask` call of the next poll.
    pub fn poll_call(&self) -> Call<'static> {
        Call::GetTask(GetTaskParams {
            id: Cow::Owned(self.task_id.clone()),
            history_length: self.history_length,
            metadata: None,
        })
    }

    /// The deadline of the whole wait on the host's clock (bound each poll's call by it).
    pub fn deadline(&self) -> Millis {
        Millis(self.started.0.saturating_add(self.config.max_time.0))
    }

    /// How many polls have been read.
    pub fn polls(&self) -> u32 {
        self.polls
    }

    /// Reads the outcome of a finished poll at `now` and says what comes next.
    pub fn read(&mut self, o: &Outcome, now: Millis) -> WaitStep {
        self.polls += 1;
        if let Some(state) = o.state
            && (state.is_terminal() || state.is_interrupted())
        {
            return WaitStep::Done;
        }
        let pending = o.state.is_some() && o.channel == crate::outcome::Channel::Task;
        if !pending && !poll_again_after(o) {
            return WaitStep::Done;
        }
        let at = Millis(now.0.saturating_add(self.interval.0));
        self.interval =
            Millis((self.interval.0.saturating_mul(3) / 2).min(self.config.max_interval.0));
        let deadline = self.deadline();
        if at < deadline {
            return WaitStep::PollAt(at);
        }
        // The next interval ends past the deadline: one last poll shortly before it, so
        // the wait uses its whole time; after that one, give up.
        let last = Millis(deadline.0.saturating_sub(LAST_POLL_LEAD.0));
        if !self.last_poll && last > now {
            self.last_poll = true;
            return WaitStep::PollAt(last);
        }
        WaitStep::GaveUp(Box::new(self.gave_up(o, now)))
    }

    /// The outcome of a wait whose deadline came before the task settled.
    fn gave_up(&self, last: &Outcome, now: Millis) -> Outcome {
        let state = last.state.map_or("unknown", |s| s.as_str());
        Outcome::transport(
            ErrorName::Timeout,
            RequestSent::Unknown,
            format!(
                "task {} still {state} after waiting {:.1} s ({} polls)",
                self.task_id,
                now.0.saturating_sub(self.started.0) as f64 / 1000.0,
                self.polls
            ),
        )
        .with_task_id(self.task_id.clone())
        .with_context_id(last.context_id.clone())
        .with_last_state(last.state)
        .with_retry(RetryAdvice::Poll)
        .with_hint(
            "the task is still running on the agent: poll it again later, or cancel it".to_owned(),
        )
    }
}

/// Whether a failed poll may go differently next time (a read is safe to repeat).
fn poll_again_after(o: &Outcome) -> bool {
    matches!(
        o.retry,
        RetryAdvice::Backoff | RetryAdvice::UnknownOutcome | RetryAdvice::Poll
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Channel, TaskState};

    fn result(o: Outcome) -> Outcome {
        o
    }

    fn task(state: TaskState) -> Outcome {
        let mut o = Outcome::empty(Channel::Task);
        o.state = Some(state);
        o.task_id = Some("t-1".to_owned());
        o
    }

    fn config() -> WaitConfig {
        WaitConfig {
            first_interval: Millis(100),
            max_interval: Millis(400),
            max_time: Millis(2_000),
        }
    }

    #[test]
    fn polls_a_working_task_at_growing_bounded_intervals_until_it_completes() {
        let mut w = TaskWait::new("t-1", Some(2), config(), Millis(1_000));
        match w.poll_call() {
            Call::GetTask(p) => {
                assert_eq!(p.id, "t-1");
                assert_eq!(p.history_length, Some(2));
            }
            c => panic!("{c:?}"),
        }
        let mut now = Millis(1_010);
        let mut gaps = Vec::new();
        for _ in 0..5 {
            match w.read(&task(TaskState::Working), now) {
                WaitStep::PollAt(at) => {
                    gaps.push(at.0 - now.0);
                    now = Millis(at.0 + 5);
                }
                s => panic!("{s:?}"),
            }
        }
        assert_eq!(gaps, [100, 150, 225, 337, 400]);
        assert_eq!(w.read(&task(TaskState::Completed), now), WaitStep::Done);
        assert_eq!(w.polls(), 6);
    }

    #[test]
    fn stops_at_failed_canceled_and_interrupted_states() {
        for s in [
            TaskState::Failed,
            TaskState::Canceled,
            TaskState::Rejected,
            TaskState::InputRequired,
            TaskState::AuthRequired,
        ] {
            let mut w = TaskWait::new("t-1", None, config(), Millis(0));
            assert_eq!(w.read(&task(s), Millis(1)), WaitStep::Done, "{s:?}");
        }
    }

    #[test]
    fn a_transient_failure_is_polled_again_and_a_lasting_one_ends_the_wait() {
        let mut w = TaskWait::new("t-1", None, config(), Millis(0));
        let reset = Outcome::transport(ErrorName::Reset, RequestSent::Unknown, "reset");
        assert!(matches!(
            w.read(&result(reset), Millis(10)),
            WaitStep::PollAt(_)
        ));
        let mut not_found = Outcome::empty(Channel::Protocol);
        not_found.error = Some(ErrorName::TaskNotFound);
        not_found.retry = RetryAdvice::Never;
        assert_eq!(w.read(&result(not_found), Millis(200)), WaitStep::Done);
        let mut forbidden = Outcome::empty(Channel::Http);
        forbidden.http_status = Some(403);
        forbidden.retry = RetryAdvice::Reauthenticate;
        let mut w = TaskWait::new("t-1", None, config(), Millis(0));
        assert_eq!(w.read(&result(forbidden), Millis(1)), WaitStep::Done);
    }

    #[test]
    fn a_stream_that_could_not_be_resumed_continues_as_polls_and_a_settled_one_stands() {
        let c = config();
        let at = Millis(5);
        // The resubscribes spent (advice resubscribe), a cut whose get fallback said working,
        // a state this client does not know, a resubscribe refused by the capability check
        // or as UnsupportedOperation: poll.
        let mut spent = Outcome::transport(ErrorName::Reset, RequestSent::Unknown, "cut");
        spent.task_id = Some("t-1".into());
        spent.retry = RetryAdvice::Resubscribe;
        let mut unknown = task(TaskState::Unknown);
        unknown.task_id = Some("t-1".into());
        let mut refused =
            Outcome::transport(ErrorName::CapabilityNotDeclared, RequestSent::No, "x");
        refused.task_id = Some("t-1".into());
        refused.retry = RetryAdvice::Never;
        let mut unsupported = Outcome::empty(Channel::Protocol);
        unsupported.error = Some(ErrorName::UnsupportedOperation);
        unsupported.task_id = Some("t-1".into());
        for o in [
            spent,
            task(TaskState::Working),
            unknown,
            refused,
            unsupported,
        ] {
            let w = TaskWait::after_stream(&o, Some(3), c, at).unwrap_or_else(|| panic!("{o:?}"));
            assert_eq!(w.deadline(), Millis(2_005));
            match w.poll_call() {
                Call::GetTask(p) => assert_eq!((p.id.as_ref(), p.history_length), ("t-1", Some(3))),
                other => panic!("{other:?}"),
            }
        }
        // Settled, no task id, a lasting failure, or no time left: the stream's result stands.
        let mut no_id = task(TaskState::Working);
        no_id.task_id = None;
        let mut gone = Outcome::empty(Channel::Protocol);
        gone.error = Some(ErrorName::TaskNotFound);
        gone.task_id = Some("t-1".into());
        let mut forbidden = Outcome::empty(Channel::Http);
        forbidden.task_id = Some("t-1".into());
        for o in [
            task(TaskState::Completed),
            task(TaskState::InputRequired),
            no_id,
            gone,
            forbidden,
        ] {
            assert!(TaskWait::after_stream(&o, None, c, at).is_none(), "{o:?}");
        }
        let none_left = WaitConfig {
            max_time: Millis(0),
            ..c
        };
        assert!(TaskWait::after_stream(&task(TaskState::Working), None, none_left, at).is_none());
    }

    #[test]
    fn gives_up_at_the_deadline_naming_the_task_and_its_state() {
        let mut w = TaskWait::new("t-1", None, config(), Millis(0));
        assert_eq!(w.deadline(), Millis(2_000));
        let mut now = Millis(0);
        let mut last = Millis(0);
        let gave_up = loop {
            match w.read(&task(TaskState::Working), now) {
                WaitStep::PollAt(at) => {
                    assert!(at < Millis(2_000));
                    last = at;
                    now = Millis(at.0 + 10);
                }
                WaitStep::GaveUp(o) => break o,
                WaitStep::Done => panic!("done while working"),
            }
            assert!(w.polls() < 50, "bounded");
        };
        assert_eq!(
            last,
            Millis(1_750),
            "the last poll goes out just before the deadline"
        );
        assert_eq!(gave_up.error, Some(ErrorName::Timeout));
        assert_eq!(gave_up.state, Some(TaskState::Working));
        assert_eq!(gave_up.task_id.as_deref(), Some("t-1"));
        assert_eq!(gave_up.retry, RetryAdvice::Poll);
        assert!(
            gave_up
                .message
                .as_deref()
                .unwrap()
                .contains("still working")
        );
        assert_eq!(gave_up.exit_code(), 3);
    }
}
