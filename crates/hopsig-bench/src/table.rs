//! The one renderer of the suites' text tables: columns with a heading, a width and an
//! alignment, rows of cells already formatted.

use std::fmt::Write as _;

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Padded on the right (names).
    Left,
    /// Padded on the left (numbers).
    Right,
}

/// One column: heading, minimum width, alignment.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The heading.
    pub heading: &'static str,
    /// Cells are padded to this many characters (longer ones are not cut).
    pub width: usize,
    /// Which side is padded.
    pub align: Align,
}

impl Column {
    /// A left-aligned column.
    pub const fn left(heading: &'static str, width: usize) -> Column {
        Column {
            heading,
            width,
            align: Align::Left,
        }
    }

    /// A right-aligned column.
    pub const fn right(heading: &'static str, width: usize) -> Column {
        Column {
            heading,
            width,
            align: Align::Right,
        }
    }
}

/// A text table: `indent`, then each cell padded to its column, one space between
/// cells, one line per row after the heading line.
#[derive(Debug, Clone)]
pub struct Table<'a> {
    columns: &'a [Column],
    indent: &'a str,
    lines: String,
}

impl<'a> Table<'a> {
    /// A table of `columns`, each line starting with `indent`.
    pub fn new(columns: &'a [Column], indent: &'a str) -> Table<'a> {
        let mut t = Table {
            columns,
            indent,
            lines: String::new(),
        };
        let headings: Vec<String> = columns.iter().map(|c| c.heading.to_string()).collect();
        t.row(&headings);
        t
    }

    /// Adds one row; a missing cell is left blank, extra cells are dropped.
    pub fn row(&mut self, cells: &[String]) {
        self.lines.push_str(self.indent);
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                self.lines.push(' ');
            }
            let cell = cells.get(i).map_or("", String::as_str);
            let _ = match c.align {
                Align::Left => write!(self.lines, "{cell:<w$}", w = c.width),
                Align::Right => write!(self.lines, "{cell:>w$}", w = c.width),
            };
        }
        self.lines.push('\n');
    }

    /// The heading line and the rows.
    pub fn render(&self) -> String {
        self.lines.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_padded_to_their_column_and_aligned() {
        const COLUMNS: [Column; 3] = [
            Column::left("scheme", 8),
            Column::right("n", 3),
            Column::right("µs", 6),
        ];
        let mut t = Table::new(&COLUMNS, "  ");
        t.row(&["bgr".into(), "4".into(), format!("{:.1}", 12.345)]);
        t.row(&["a-long-name".into()]);
        assert_eq!(
            t.render(),
            "  scheme     n     µs\n  bgr        4   12.3\n  a-long-name           \n"
        );
    }
}
