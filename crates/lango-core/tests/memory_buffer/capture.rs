//! Log capture without extra dependencies: one process-global `tracing::Subscriber` that hands
//! each event to the `Capture` active on the emitting thread.
//!
//! Why global and not `tracing::subscriber::with_default`: with scoped dispatchers, tracing caches
//! each callsite's interest from the dispatchers alive when the callsite is first hit. Tests run in
//! parallel threads, so a callsite first hit by another test between two dispatcher registrations
//! can be cached as "never" and the capturing test then sees no events (CI saw exactly that once).
//! A single global subscriber that is interested in everything has no such race.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, Once};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

#[derive(Clone, Default)]
pub struct Capture {
    events: Arc<Mutex<Vec<(Level, String)>>>,
}

thread_local! {
    static ACTIVE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={:?} ", field.name(), value);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, "{}={} ", field.name(), value);
    }
}

/// Routes events to the emitting thread's active `Capture`, drops the rest.
struct ThreadRouter;

impl Subscriber for ThreadRouter {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        ACTIVE.with(|active| {
            if let Some(capture) = active.borrow().as_ref() {
                let mut fields = Fields(String::new());
                event.record(&mut fields);
                capture
                    .events
                    .lock()
                    .unwrap()
                    .push((*event.metadata().level(), fields.0));
            }
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

impl Capture {
    /// Runs `f`, recording every event this thread emits meanwhile.
    pub fn during<R>(&self, f: impl FnOnce() -> R) -> R {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            tracing::subscriber::set_global_default(ThreadRouter)
                .expect("no other global subscriber in this test binary");
        });
        ACTIVE.with(|active| *active.borrow_mut() = Some(self.clone()));
        let result = f();
        ACTIVE.with(|active| *active.borrow_mut() = None);
        result
    }

    pub fn warnings(&self) -> Vec<String> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|(level, _)| *level == Level::WARN)
            .map(|(_, text)| text.clone())
            .collect()
    }
}
