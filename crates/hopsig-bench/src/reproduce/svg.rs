//! A minimal SVG line chart: enough for "size vs n" and "verify time vs n".

/// One line: a name and its points.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, x ascending.
    pub points: Vec<(f64, f64)>,
}

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];
const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A "nice" tick step for a range.
fn step(max: f64) -> f64 {
    let raw = (max / 5.0).max(1e-9);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
}

/// Renders the chart; y starts at 0.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let pts = series.iter().flat_map(|s| s.points.iter());
    let x_max = pts.clone().map(|p| p.0).fold(1.0, f64::max);
    let y_step = step(pts.map(|p| p.1).fold(0.0, f64::max));
    let y_max = y_step * 5.0_f64.max(1.0);
    let y_max = if series.iter().flat_map(|s| &s.points).any(|p| p.1 > y_max) {
        y_step * 6.0
    } else {
        y_max
    };
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let sx = |x: f64| LEFT + x / x_max * pw;
    let sy = |y: f64| TOP + ph - y / y_max * ph;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">{}</text>\n",
        LEFT + pw / 2.0,
        esc(title)
    );
    let mut y = 0.0;
    while y <= y_max + 1e-9 {
        s += &format!(
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            LEFT + pw, sy(y), sy(y), LEFT - 6.0, sy(y) + 4.0, y
        );
        y += y_step;
    }
    let x_step = step(x_max).max(1.0);
    let mut x = 0.0;
    while x <= x_max + 1e-9 {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            sx(x),
            TOP + ph + 18.0,
            x
        );
        x += x_step;
    }
    s += &format!(
        "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{}\" stroke=\"black\"/><line x1=\"{LEFT}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
         <text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
        TOP + ph, LEFT + pw, TOP + ph, TOP + ph,
        LEFT + pw / 2.0, H - 16.0, esc(x_label),
        TOP + ph / 2.0, esc(y_label)
    );
    for (i, ser) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let path: Vec<String> = ser
            .points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
            .collect();
        s += &format!(
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>\n",
            path.join(" ")
        );
        for (x, y) in &ser.points {
            s += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"/>\n",
                sx(*x),
                sy(*y)
            );
        }
        let ly = TOP + 10.0 + 20.0 * i as f64;
        s += &format!(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{c}\" stroke-width=\"3\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
            W - RIGHT + 12.0, W - RIGHT + 32.0, W - RIGHT + 38.0, ly + 4.0, esc(&ser.name)
        );
    }
    s + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_has_one_polyline_per_series_and_escapes_text() {
        let svg = line_chart(
            "a<b",
            "n",
            "bits",
            &[
                Series {
                    name: "one".into(),
                    points: vec![(1.0, 2.0), (2.0, 4.0)],
                },
                Series {
                    name: "two".into(),
                    points: vec![(1.0, 3.0)],
                },
            ],
        );
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("a&lt;b"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn steps_are_round_numbers() {
        assert_eq!(step(10.0), 2.0);
        assert_eq!(step(2300.0), 500.0);
        assert_eq!(step(0.9), 0.2);
    }
}
