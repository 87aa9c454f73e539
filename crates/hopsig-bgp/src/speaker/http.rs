//! The speaker's HTTP server (issue 26): Prometheus `/metrics` (§1) and the
//! read-only JSON API (§2), on the `[http] listen` address of the configuration
//! (docs/spec/speaker.md). axum serves it; the RIB task answers the API's queries,
//! so that no other task reads routes.

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::sync::mpsc;

use super::events::Event;

/// What every handler may use.
#[derive(Clone)]
pub struct HttpState {
    /// The Prometheus recorder's handle: `/metrics` renders it.
    pub prometheus: PrometheusHandle,
    /// The RIB task's event queue, where the API's queries go.
    pub rib: mpsc::UnboundedSender<Event>,
}

/// Every route of the server.
pub fn router(state: HttpState) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .merge(super::api::routes())
        .with_state(state)
}

/// `GET /metrics`: the Prometheus text exposition format.
async fn metrics(State(state): State<HttpState>) -> String {
    state.prometheus.render()
}

/// Serves [`router`] on `listener` until the process stops.
///
/// # Errors
/// The listener fails.
pub async fn serve(listener: tokio::net::TcpListener, state: HttpState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}
