//! The `appearance` section: the UI theme.
//!
//! Owns the theme setting only. It must not apply it (the desktop shell does).

use serde_json::Value;

use super::fields::{describe, Fields, Report};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Follow the operating system.
    #[default]
    System,
    Light,
    Dark,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppearanceSettings {
    pub theme: Theme,
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> AppearanceSettings {
    let mut appearance = AppearanceSettings::default();
    let Some(f) = Fields::open(value, "appearance", &["theme"], report) else {
        return appearance;
    };
    if let Some(name) = f.string("theme", report) {
        match name.trim().to_lowercase().as_str() {
            "system" => appearance.theme = Theme::System,
            "light" => appearance.theme = Theme::Light,
            "dark" => appearance.theme = Theme::Dark,
            _ => {
                let path = f.path("theme");
                report.problem(
                    &path,
                    format!(
                        "{path} must be \"system\", \"light\" or \"dark\", got {}",
                        describe(&Value::String(name))
                    ),
                );
            }
        }
    }
    appearance
}
