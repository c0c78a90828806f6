//! SPEC §3 "Client — connection loss" and §6 `connection`: per session whether it is down, and
//! the events of its losses and restorations (the first 100, the rest counted in `truncated`).

use serde_json::{json, Value};

use crate::clock::{now_ns, wall_ns};

pub const CONNECTION_EVENTS: usize = 100;
/// SPEC §3: a closed-loop slot's wait after a failed request, so a dead connection is not spun on.
pub const RETRY_MS: u64 = 10;

pub struct Connection {
    down: Vec<bool>,
    events: Vec<Value>,
    lost: u64,
    restored: u64,
    truncated: u64,
}

impl Connection {
    pub fn new(sessions: usize) -> Self {
        Connection {
            down: vec![false; sessions],
            events: vec![],
            lost: 0,
            restored: 0,
            truncated: 0,
        }
    }

    pub fn is_down(&self, session: usize) -> bool {
        self.down[session]
    }

    /// A session already lost is not lost again; true when this is a new loss.
    pub fn mark_lost(&mut self, session: usize) -> bool {
        if self.down[session] {
            return false;
        }
        self.down[session] = true;
        self.lost += 1;
        self.add(session, "lost", None);
        true
    }

    /// subscriptions: in `subscribe`, what became of the session's subscriptions, else None.
    pub fn mark_restored(&mut self, session: usize, subscriptions: Option<&str>) {
        if !self.down[session] {
            return;
        }
        self.down[session] = false;
        self.restored += 1;
        self.add(session, "restored", subscriptions);
    }

    fn add(&mut self, session: usize, state: &str, subscriptions: Option<&str>) {
        if self.events.len() < CONNECTION_EVENTS {
            self.events.push(
                json!({"t_ns": wall_ns(now_ns()), "session": session, "state": state, "subscriptions": subscriptions}),
            );
        } else {
            self.truncated += 1;
        }
    }

    pub fn record(&self) -> Value {
        json!({"lost": self.lost, "restored": self.restored, "events": self.events, "truncated": self.truncated})
    }
}
