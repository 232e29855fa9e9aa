//! SIGINT, SIGTERM and SIGHUP during `lango chat`: a signal never loses the reply so far.
//!
//! Once [`Signals::listen`] runs, these signals no longer kill the process outright; instead:
//! - during a turn, any of them cancels the turn: the reply so far is kept, marked interrupted
//!   (the engine does that on cancellation, as for Ctrl-C);
//! - SIGTERM and SIGHUP also end the chat (an interactive one does not go back to the prompt),
//!   as does SIGINT while no turn runs (waiting for piped input);
//! - the process then shuts the engine down as usual and exits with the shell's code for the
//!   signal, 128 + its number: 130 SIGINT, 143 SIGTERM, 129 SIGHUP. A signal that arrives
//!   while the chat is already ending or shutting down exits at once (everything written is
//!   committed by then; only pending memory work is left for the next start).
//!
//! Ctrl-C at an interactive prompt is a key press rustyline reads, not a signal.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::exit::Kind;

/// A signal that stops a reply or the chat (Windows has only Ctrl-C).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(unix), allow(dead_code))]
pub enum Stop {
    Interrupt,
    Terminate,
    HangUp,
}

impl Stop {
    /// The exit code: 128 + the signal number, as shells report it.
    pub fn kind(self) -> Kind {
        match self {
            Stop::Interrupt => Kind::Interrupted,
            Stop::Terminate => Kind::Terminated,
            Stop::HangUp => Kind::HungUp,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::HangUp => "SIGHUP",
        }
    }

    /// Whether the signal ends the chat even when it arrives during a turn.
    fn ends_chat(self) -> bool {
        self != Stop::Interrupt
    }
}

/// The process's signal state for one `lango chat`. Cheap to clone.
#[derive(Clone, Default)]
pub struct Signals {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    ended: Notify,
}

#[derive(Default)]
struct State {
    /// The running turn's cancellation, if a turn runs.
    turn: Option<CancellationToken>,
    /// The signal that ends the chat, once one arrived.
    ending: Option<Stop>,
    /// The chat is over and the engine shutting down: any signal exits at once.
    closing: bool,
}

impl Signals {
    /// Installs the handlers (for the rest of the process) and starts reacting to signals.
    pub fn listen() -> Self {
        let signals = Signals::default();
        let handle = signals.clone();
        tokio::spawn(async move {
            let mut incoming = Incoming::new();
            while let Some(stop) = incoming.next().await {
                handle.on_signal(stop);
            }
        });
        signals
    }

    fn on_signal(&self, stop: Stop) {
        let mut state = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = state.ending.or(state.closing.then_some(stop));
        if let Some(code) = now {
            tracing::warn!(
                signal = stop.name(),
                "signal while shutting down: exiting now"
            );
            std::process::exit(i32::from(code.kind() as u8));
        }
        match &state.turn {
            Some(turn) => {
                turn.cancel();
                if stop.ends_chat() {
                    state.ending = Some(stop);
                }
            }
            None => state.ending = Some(stop),
        }
        if state.ending.is_some() {
            self.shared.ended.notify_waiters();
        }
    }

    /// Registers a turn: a signal from now until the guard drops cancels `cancel`. A signal
    /// that already ended the chat cancels it at once.
    pub fn during_turn(&self, cancel: CancellationToken) -> TurnGuard {
        let mut state = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if state.ending.is_some() {
            cancel.cancel();
        }
        state.turn = Some(cancel);
        TurnGuard {
            signals: self.clone(),
        }
    }

    /// Marks the start of the shutdown: from now on a signal exits at once.
    pub fn closing(&self) {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closing = true;
    }

    /// The signal that ends the chat, if one arrived.
    pub fn ending(&self) -> Option<Stop> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .ending
    }

    /// Resolves once a signal ended the chat (to stop waiting for input).
    pub async fn ended(&self) {
        let notified = self.shared.ended.notified();
        tokio::pin!(notified);
        // Registered before checking, so a signal between the check and the wait is not missed.
        notified.as_mut().enable();
        if self.ending().is_some() {
            return;
        }
        notified.await;
    }
}

/// Unregisters the turn when dropped.
pub struct TurnGuard {
    signals: Signals,
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        self.signals
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .turn = None;
    }
}

/// The signals as a stream. On Unix: SIGINT, SIGTERM, SIGHUP; elsewhere only Ctrl-C.
struct Incoming {
    #[cfg(unix)]
    streams: Option<[(Stop, tokio::signal::unix::Signal); 3]>,
}

impl Incoming {
    #[cfg(unix)]
    fn new() -> Self {
        use tokio::signal::unix::{signal, SignalKind};
        let streams = (|| {
            Ok::<_, std::io::Error>([
                (Stop::Interrupt, signal(SignalKind::interrupt())?),
                (Stop::Terminate, signal(SignalKind::terminate())?),
                (Stop::HangUp, signal(SignalKind::hangup())?),
            ])
        })();
        if let Err(e) = &streams {
            tracing::warn!(error = %e, "cannot watch for signals; Ctrl-C will end lango without saving the reply so far");
        }
        Self {
            streams: streams.ok(),
        }
    }

    #[cfg(unix)]
    async fn next(&mut self) -> Option<Stop> {
        let [(a, sa), (b, sb), (c, sc)] = self.streams.as_mut()?;
        tokio::select! {
            Some(()) = sa.recv() => Some(*a),
            Some(()) = sb.recv() => Some(*b),
            Some(()) = sc.recv() => Some(*c),
            else => None,
        }
    }

    #[cfg(not(unix))]
    fn new() -> Self {
        Self {}
    }

    #[cfg(not(unix))]
    async fn next(&mut self) -> Option<Stop> {
        tokio::signal::ctrl_c().await.ok().map(|()| Stop::Interrupt)
    }
}
