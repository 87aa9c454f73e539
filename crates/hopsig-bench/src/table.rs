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

/// One column: heading, minimum width, alignment, and the spaces before it.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The heading.
    pub heading: &'static str,
    /// Cells are padded to this many characters (longer ones are not cut).
    pub width: usize,
    /// Which side is padded.
    pub align: Align,
    /// Spaces between the previous column and this one (1 unless set).
    pub gap: usize,
}

impl Column {
    /// A left-aligned column.
    pub const fn left(heading: &'static str, width: usize) -> Column {
        Column {
            heading,
            width,
            align: Align::Left,
            gap: 1,
        }
    }

    /// A right-aligned column.
    pub const fn right(heading: &'static str, width: usize) -> Column {
        Column {
            heading,
            width,
            align: Align::Right,
            gap: 1,
        }
    }

    /// The same column, `gap` spaces after the previous one.
    pub const fn after(self, gap: usize) -> Column {
        Column { gap, ..self }
    }
}

/// A text table: `indent`, then each cell padded to its column, one space between
/// cells, one line per row after the heading line.
#[derive(Debug, Clone)]
pub struct Table {
    columns: Vec<Column>,
    indent: &'static str,
    lines: String,
}

impl Table {
    /// A table of `columns`, each line starting with `indent`.
    pub fn new(columns: &[Column], indent: &'static str) -> Table {
        let mut t = Table {
            columns: columns.to_vec(),
            indent,
            lines: String::new(),
        };
        let headings: Vec<&str> = columns.iter().map(|c| c.heading).collect();
        t.row(headings);
        t
    }

    /// Adds one row; a missing cell is left blank, extra cells are dropped.
    pub fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.lines.push_str(self.indent);
        let mut cells = cells.into_iter();
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                self.lines.extend(std::iter::repeat_n(' ', c.gap));
            }
            let cell = cells.next();
            let cell = cell.as_ref().map_or("", AsRef::as_ref);
            let _ = match c.align {
                Align::Left => write!(self.lines, "{cell:<w$}", w = c.width),
                Align::Right => write!(self.lines, "{cell:>w$}", w = c.width),
            };
        }
        self.lines.push('\n');
    }

    /// The heading line and the rows.
    pub fn render(self) -> String {
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_padded_to_their_column_and_aligned() {
        const COLUMNS: [Column; 4] = [
            Column::left("scheme", 8),
            Column::right("n", 3),
            Column::right("µs", 6),
            Column::left("note", 0).after(2),
        ];
        let mut t = Table::new(&COLUMNS, "  ");
        t.row([
            "bgr".into(),
            "4".into(),
            format!("{:.1}", 12.345),
            "x".into(),
        ]);
        t.row(["a-long-name"]);
        assert_eq!(
            t.render(),
            "  scheme     n     µs  note\n  bgr        4   12.3  x\n  a-long-name             \n"
        );
    }
}
