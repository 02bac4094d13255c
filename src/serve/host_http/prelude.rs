//! The outside names every file of the HTTP host side uses (axum, tokio, serde_json, serve's
//! session), in one place.

pub(super) use crate::json::IdScanner;
pub(super) use crate::mcp::era;
pub(super) use crate::serve::rpc_error::error_response;
pub(super) use crate::serve::session::{self, HostMsg, HostOut, HostSink, Shared};
pub(super) use axum::Router as Axum;
pub(super) use axum::extract::{ConnectInfo, DefaultBodyLimit, State};
pub(super) use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
pub(super) use axum::response::sse::{Event, KeepAlive, Sse};
pub(super) use axum::response::{IntoResponse, Response};
pub(super) use axum::routing::{get, post};
pub(super) use futures_util::Stream;
pub(super) use serde_json::Value;
pub(super) use std::collections::{HashMap, VecDeque};
pub(super) use std::convert::Infallible;
pub(super) use std::net::{IpAddr, SocketAddr};
pub(super) use std::sync::{Arc, Mutex, MutexGuard};
pub(super) use std::time::{Duration, Instant};
pub(super) use tokio::sync::mpsc;
