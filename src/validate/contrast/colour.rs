//! Colour maths for the contrast rule: CSS colour values, WCAG contrast ratios, HSL and CIE L*a*b*
//! distances, and the nearest colour of the same hue that reaches a ratio.

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rgba {
    pub(super) r: f64,
    pub(super) g: f64,
    pub(super) b: f64,
    pub(super) a: f64,
}

impl Rgba {
    pub(super) fn over(self, bg: Rgba) -> Rgba {
        let a = self.a;
        Rgba {
            r: self.r * a + bg.r * (1.0 - a),
            g: self.g * a + bg.g * (1.0 - a),
            b: self.b * a + bg.b * (1.0 - a),
            a: 1.0,
        }
    }

    pub(super) fn luminance(self) -> f64 {
        let ch = |c: f64| {
            let c = c / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * ch(self.r) + 0.7152 * ch(self.g) + 0.0722 * ch(self.b)
    }

    pub(super) fn hex(self) -> String {
        let c = |v: f64| v.round().clamp(0.0, 255.0) as u8;
        format!("#{:02x}{:02x}{:02x}", c(self.r), c(self.g), c(self.b))
    }
}

pub(super) fn ratio(fg: Rgba, bg: Rgba) -> f64 {
    let (a, b) = (fg.luminance(), bg.luminance());
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    (hi + 0.05) / (lo + 0.05)
}

pub(super) const fn rgb(r: u8, g: u8, b: u8) -> Rgba {
    Rgba {
        r: r as f64,
        g: g as f64,
        b: b as f64,
        a: 1.0,
    }
}

/// The runtime's own default text and background (templates/styles.css).
pub(super) const LIGHT_FG: Rgba = rgb(0x1a, 0x1d, 0x21);
pub(super) const LIGHT_BG: Rgba = rgb(0xff, 0xff, 0xff);
pub(super) const DARK_FG: Rgba = rgb(0xe8, 0xea, 0xed);
pub(super) const DARK_BG: Rgba = rgb(0x16, 0x18, 0x1c);

pub(super) const NAMED: [(&str, (u8, u8, u8)); 56] = [
    ("white", (255, 255, 255)),
    ("black", (0, 0, 0)),
    ("red", (255, 0, 0)),
    ("green", (0, 128, 0)),
    ("blue", (0, 0, 255)),
    ("gray", (128, 128, 128)),
    ("grey", (128, 128, 128)),
    ("silver", (192, 192, 192)),
    ("maroon", (128, 0, 0)),
    ("purple", (128, 0, 128)),
    ("fuchsia", (255, 0, 255)),
    ("magenta", (255, 0, 255)),
    ("lime", (0, 255, 0)),
    ("olive", (128, 128, 0)),
    ("yellow", (255, 255, 0)),
    ("navy", (0, 0, 128)),
    ("teal", (0, 128, 128)),
    ("aqua", (0, 255, 255)),
    ("cyan", (0, 255, 255)),
    ("orange", (255, 165, 0)),
    ("lightgray", (211, 211, 211)),
    ("lightgrey", (211, 211, 211)),
    ("darkgray", (169, 169, 169)),
    ("darkgrey", (169, 169, 169)),
    ("dimgray", (105, 105, 105)),
    ("dimgrey", (105, 105, 105)),
    ("gainsboro", (220, 220, 220)),
    ("whitesmoke", (245, 245, 245)),
    ("slategray", (112, 128, 144)),
    ("lightslategray", (119, 136, 153)),
    ("darkslategray", (47, 79, 79)),
    ("crimson", (220, 20, 60)),
    ("tomato", (255, 99, 71)),
    ("gold", (255, 215, 0)),
    ("indigo", (75, 0, 130)),
    ("royalblue", (65, 105, 225)),
    ("steelblue", (70, 130, 180)),
    ("dodgerblue", (30, 144, 255)),
    ("seagreen", (46, 139, 87)),
    ("forestgreen", (34, 139, 34)),
    ("darkgreen", (0, 100, 0)),
    ("darkred", (139, 0, 0)),
    ("darkblue", (0, 0, 139)),
    ("firebrick", (178, 34, 34)),
    ("coral", (255, 127, 80)),
    ("salmon", (250, 128, 114)),
    ("orangered", (255, 69, 0)),
    ("pink", (255, 192, 203)),
    ("hotpink", (255, 105, 180)),
    ("beige", (245, 245, 220)),
    ("ivory", (255, 255, 240)),
    ("lavender", (230, 230, 250)),
    ("skyblue", (135, 206, 235)),
    ("lightblue", (173, 216, 230)),
    ("lightgreen", (144, 238, 144)),
    ("brown", (165, 42, 42)),
];

pub(super) fn parse_color(value: &str) -> Option<Rgba> {
    let v = value.trim().trim_end_matches("!important").trim();
    let lower = v.to_ascii_lowercase();
    if lower == "transparent" {
        return Some(Rgba {
            r: 0.0,
            g: 0.0,
            b: 0.0,
            a: 0.0,
        });
    }
    if let Some(hex) = lower.strip_prefix('#') {
        let digits: Vec<u8> = hex
            .chars()
            .map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok()))
            .collect::<Option<_>>()?;
        let (r, g, b, a) = match digits.as_slice() {
            [r, g, b] => (r * 17, g * 17, b * 17, 255),
            [r, g, b, a] => (r * 17, g * 17, b * 17, a * 17),
            [r1, r2, g1, g2, b1, b2] => (r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2, 255),
            [r1, r2, g1, g2, b1, b2, a1, a2] => {
                (r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2, a1 * 16 + a2)
            }
            _ => return None,
        };
        let mut c = rgb(r, g, b);
        c.a = f64::from(a) / 255.0;
        return Some(c);
    }
    if let Some((_, c)) = NAMED.iter().find(|(n, _)| *n == lower) {
        return Some(rgb(c.0, c.1, c.2));
    }
    let (func, args) = lower.split_once('(')?;
    let args = args.strip_suffix(')')?;
    let parts: Vec<&str> = args
        .split([',', ' ', '/'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let num = |s: &str, scale: f64| -> Option<f64> {
        if let Some(p) = s.strip_suffix('%') {
            p.parse::<f64>().ok().map(|x| x / 100.0 * scale)
        } else {
            s.trim_end_matches("deg").parse::<f64>().ok()
        }
    };
    let alpha = |s: Option<&&str>| -> Option<f64> {
        match s {
            None => Some(1.0),
            Some(s) => num(s, 1.0).map(|a| a.clamp(0.0, 1.0)),
        }
    };
    match func.trim() {
        "rgb" | "rgba" if parts.len() >= 3 => Some(Rgba {
            r: num(parts[0], 255.0)?,
            g: num(parts[1], 255.0)?,
            b: num(parts[2], 255.0)?,
            a: alpha(parts.get(3))?,
        }),
        "hsl" | "hsla" if parts.len() >= 3 => {
            let h = num(parts[0], 360.0)?.rem_euclid(360.0) / 360.0;
            let s = num(parts[1], 1.0)?;
            let l = num(parts[2], 1.0)?;
            // Percentages were scaled to 0..1; bare numbers (modern syntax) are 0..100.
            let s = if s > 1.0 { s / 100.0 } else { s };
            let l = if l > 1.0 { l / 100.0 } else { l };
            let q = if l < 0.5 {
                l * (1.0 + s)
            } else {
                l + s - l * s
            };
            let p = 2.0 * l - q;
            let hue = |mut t: f64| {
                t = t.rem_euclid(1.0);
                if t < 1.0 / 6.0 {
                    p + (q - p) * 6.0 * t
                } else if t < 0.5 {
                    q
                } else if t < 2.0 / 3.0 {
                    p + (q - p) * (2.0 / 3.0 - t) * 6.0
                } else {
                    p
                }
            };
            Some(Rgba {
                r: hue(h + 1.0 / 3.0) * 255.0,
                g: hue(h) * 255.0,
                b: hue(h - 1.0 / 3.0) * 255.0,
                a: alpha(parts.get(3))?,
            })
        }
        _ => None,
    }
}

pub(super) fn to_hsl(c: Rgba) -> (f64, f64, f64) {
    let (r, g, b) = (c.r / 255.0, c.g / 255.0, c.b / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d.abs() < 1e-12 {
        return (0.0, 0.0, l);
    }
    let s = d / (1.0 - (2.0 * l - 1.0).abs()).max(1e-12);
    let h = if (max - r).abs() < 1e-12 {
        ((g - b) / d).rem_euclid(6.0)
    } else if (max - g).abs() < 1e-12 {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    };
    (h * 60.0, s.clamp(0.0, 1.0), l)
}

pub(super) fn from_hsl(h: f64, s: f64, l: f64, a: f64) -> Rgba {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (hp.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    Rgba {
        r: ((r + m) * 255.0).clamp(0.0, 255.0),
        g: ((g + m) * 255.0).clamp(0.0, 255.0),
        b: ((b + m) * 255.0).clamp(0.0, 255.0),
        a,
    }
}

/// As written into CSS: whole channels, alpha to three decimals.
pub(super) fn rounded(c: Rgba) -> Rgba {
    Rgba {
        r: c.r.round().clamp(0.0, 255.0),
        g: c.g.round().clamp(0.0, 255.0),
        b: c.b.round().clamp(0.0, 255.0),
        a: (c.a * 1000.0).round() / 1000.0,
    }
}

pub(super) fn css_colour(c: Rgba) -> String {
    if c.a >= 1.0 {
        c.hex()
    } else {
        let a = format!("{:.3}", c.a);
        let a = a.trim_end_matches('0').trim_end_matches('.');
        format!("rgba({}, {}, {}, {a})", c.r, c.g, c.b)
    }
}

/// CIE L*a*b* (D65), for measuring how much a colour moved.
pub(super) fn lab(c: Rgba) -> (f64, f64, f64) {
    let lin = |v: f64| {
        let v = v / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(c.r), lin(c.g), lin(c.b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    (116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz))
}

pub(super) fn delta_e(a: Rgba, b: Rgba) -> f64 {
    let (l1, a1, b1) = lab(a);
    let (l2, a2, b2) = lab(b);
    ((l1 - l2).powi(2) + (a1 - a2).powi(2) + (b1 - b2).powi(2)).sqrt()
}

/// The colour of the same hue and saturation (and alpha) as `raw`, with the lightness nearest
/// to its own, for which `ok` holds as written into CSS. `ok` must be monotonic in lightness
/// towards black and towards white (contrast against a fixed colour is).
pub(super) fn nearest_same_hue(raw: Rgba, ok: &dyn Fn(Rgba) -> bool) -> Option<Rgba> {
    let (h, s, l) = to_hsl(raw);
    let at = |x: f64| rounded(from_hsl(h, s, x.clamp(0.0, 1.0), raw.a));
    let mut best: Option<(f64, Rgba)> = None;
    for target in [0.0, 1.0] {
        if !ok(at(target)) {
            continue;
        }
        // `lo` fails (or is the start), `hi` passes.
        let (mut lo, mut hi) = (l, target);
        for _ in 0..48 {
            let mid = (lo + hi) / 2.0;
            if ok(at(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let c = at(hi);
        if ok(c) {
            let d = (hi - l).abs();
            if best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((d, c));
            }
        }
    }
    best.map(|b| b.1)
}
