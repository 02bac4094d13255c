//! A small, deterministic weather MCP server (rmcp) used as the reference upstream in docs and
//! tests: the same city always gets the same weather, so generated UIs and snapshots are stable.
//!
//! `cargo run -p mcp-gen-ui-examples --bin weather-server` speaks stdio; `-- --http 127.0.0.1:3001` serves
//! streamable HTTP at `/mcp` (add `--json-response` for stateless JSON answers instead of SSE).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Known cities: name, country, mean summer temperature (°C), rain tendency (0..1).
const CITIES: &[(&str, &str, f64, f64)] = &[
    ("Amsterdam", "NL", 19.0, 0.5),
    ("Berlin", "DE", 21.0, 0.35),
    ("Cairo", "EG", 33.0, 0.02),
    ("Lisbon", "PT", 25.0, 0.1),
    ("London", "GB", 18.0, 0.55),
    ("Mumbai", "IN", 30.0, 0.8),
    ("New York", "US", 26.0, 0.35),
    ("Paris", "FR", 22.0, 0.35),
    ("Reykjavik", "IS", 11.0, 0.6),
    ("San Francisco", "US", 18.0, 0.05),
    ("Sydney", "AU", 14.0, 0.4),
    ("Tokyo", "JP", 25.0, 0.6),
];

/// The fixed "today" of this server: 2025-06-01.
const BASE_YEAR_MONTH: &str = "2025-06";

const SUMMARIES: &[&str] = &[
    "Sunny",
    "Mostly sunny",
    "Partly cloudy",
    "Cloudy",
    "Light rain",
    "Showers",
    "Thunderstorms",
];

#[derive(Debug, Deserialize, JsonSchema)]
struct CityArgs {
    /// City name, e.g. "Berlin" (case-insensitive).
    city: String,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Units {
    #[default]
    Metric,
    Imperial,
}

fn default_days() -> u8 {
    7
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ForecastArgs {
    /// City name, e.g. "Berlin" (case-insensitive).
    city: String,
    /// Number of days to forecast, 1 to 14.
    #[serde(default = "default_days")]
    #[schemars(range(min = 1, max = 14))]
    days: u8,
    /// Temperature and precipitation units.
    #[serde(default)]
    units: Units,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Conditions {
    city: String,
    country: String,
    /// ISO 8601 time of the observation.
    observed_at: String,
    temperature: f64,
    feels_like: f64,
    /// "°C" or "°F".
    temperature_unit: String,
    humidity_percent: u8,
    wind_kph: f64,
    summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ForecastDay {
    /// YYYY-MM-DD
    date: String,
    high: f64,
    low: f64,
    precipitation_mm: f64,
    summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Forecast {
    city: String,
    country: String,
    units: Units,
    forecast: Vec<ForecastDay>,
}

/// FNV-1a: tiny, stable across platforms and Rust versions (unlike `DefaultHasher`).
fn fnv(text: &str, salt: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A deterministic number in [0, 1) for (city, day, what).
fn unit(city: &str, day: u64, what: u64) -> f64 {
    (fnv(city, day * 16 + what) % 10_000) as f64 / 10_000.0
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn find_city(name: &str) -> Result<&'static (&'static str, &'static str, f64, f64), String> {
    let wanted = name.trim();
    CITIES
        .iter()
        .find(|c| c.0.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| {
            let known: Vec<&str> = CITIES.iter().map(|c| c.0).collect();
            format!(
                "Unknown city {wanted:?}. This demo server knows: {}.",
                known.join(", ")
            )
        })
}

fn convert(celsius: f64, units: Units) -> f64 {
    match units {
        Units::Metric => round1(celsius),
        Units::Imperial => round1(celsius * 9.0 / 5.0 + 32.0),
    }
}

#[derive(Debug, Clone)]
struct Weather {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Weather {
    fn new() -> Self {
        Weather {
            tool_router: Self::tool_router(),
        }
    }

    /// Current weather conditions for a city: temperature, humidity, wind and a short summary.
    #[tool(
        title = "Current conditions",
        annotations(read_only_hint = true, open_world_hint = false, idempotent_hint = true)
    )]
    async fn get_current_conditions(
        &self,
        Parameters(args): Parameters<CityArgs>,
    ) -> Result<Json<Conditions>, String> {
        let (name, country, mean, rain) = *find_city(&args.city)?;
        let temp = mean + (unit(name, 0, 1) - 0.5) * 8.0;
        let summary = pick_summary(unit(name, 0, 2), rain);
        Ok(Json(Conditions {
            city: name.to_string(),
            country: country.to_string(),
            observed_at: format!("{BASE_YEAR_MONTH}-01T12:00:00Z"),
            temperature: round1(temp),
            feels_like: round1(temp - unit(name, 0, 3) * 3.0),
            temperature_unit: "°C".into(),
            humidity_percent: (35.0 + unit(name, 0, 4) * 55.0) as u8,
            wind_kph: round1(unit(name, 0, 5) * 35.0),
            summary: summary.to_string(),
        }))
    }

    /// Daily forecast for a city: high and low temperature, precipitation and a summary per day.
    #[tool(
        title = "Weather forecast",
        annotations(read_only_hint = true, open_world_hint = false, idempotent_hint = true)
    )]
    async fn get_forecast(
        &self,
        Parameters(args): Parameters<ForecastArgs>,
    ) -> Result<Json<Forecast>, String> {
        if !(1..=14).contains(&args.days) {
            return Err(format!(
                "`days` must be between 1 and 14, got {}.",
                args.days
            ));
        }
        let (name, country, mean, rain) = *find_city(&args.city)?;
        let forecast = (0..u64::from(args.days))
            .map(|d| {
                let high = mean + (unit(name, d, 1) - 0.3) * 7.0;
                let low = high - 5.0 - unit(name, d, 2) * 6.0;
                let wet = unit(name, d, 3);
                let precipitation = if wet < rain {
                    round1(unit(name, d, 4) * 18.0)
                } else {
                    0.0
                };
                ForecastDay {
                    date: format!("{BASE_YEAR_MONTH}-{:02}", d + 1),
                    high: convert(high, args.units),
                    low: convert(low, args.units),
                    precipitation_mm: precipitation,
                    summary: pick_summary(
                        unit(name, d, 5),
                        if precipitation > 0.0 { 1.0 } else { 0.0 },
                    )
                    .to_string(),
                }
            })
            .collect();
        Ok(Json(Forecast {
            city: name.to_string(),
            country: country.to_string(),
            units: args.units,
            forecast,
        }))
    }
}

fn pick_summary(x: f64, rain: f64) -> &'static str {
    let dry = &SUMMARIES[..4];
    let wet = &SUMMARIES[4..];
    let pool = if x < rain { wet } else { dry };
    let idx = ((x * 997.0) as usize) % pool.len();
    pool.get(idx).copied().unwrap_or("Cloudy")
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Weather {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("weather", env!("CARGO_PKG_VERSION")))
            .with_instructions("Deterministic demo weather for a fixed set of cities.")
    }
}

#[path = "support/serve_main.rs"]
mod serve_main;

fn main() -> std::process::ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let serve = match serve_main::take_serve_args(&mut args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("weather-server: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    if let Some(extra) = args.first() {
        eprintln!(
            "weather-server: unknown argument {extra:?} (usage: weather-server [--http ADDR [--json-response]])"
        );
        return std::process::ExitCode::from(2);
    }
    serve_main::run("weather-server", serve, || Ok(Weather::new()))
}
