//! `hopsig completions SHELL` and `hopsig man`: shell completion scripts
//! (`clap_complete`) and manual pages (`clap_mangen`) generated from the command line
//! definition itself, so that they cannot describe options hopsig does not have.
//!
//! The generated files are also checked in under `contrib/completions/` and
//! `contrib/man/` (for packagers who do not run the binary at build time);
//! `contrib/regenerate.sh` rewrites them and `crates/hopsig-cli/tests/packaging.rs`
//! fails when they are not in step with the binary.

use std::path::PathBuf;

use clap::CommandFactory;

use crate::io::{self, outputs, print_generated, Failure, Outcome, Secrecy};

/// The shells `hopsig completions` writes for (contrib/completions/ holds their
/// scripts as `hopsig.bash`, `_hopsig` and `hopsig.fish`).
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Shell {
    /// bash (bash-completion): `hopsig.bash`, sourced or placed in
    /// /usr/share/bash-completion/completions/hopsig.
    Bash,
    /// zsh: `_hopsig`, placed in a folder of `$fpath`.
    Zsh,
    /// fish: `hopsig.fish`, placed in ~/.config/fish/completions/.
    Fish,
}

/// Print a shell completion script for hopsig on standard output.
///
/// bash: `hopsig completions bash > /usr/share/bash-completion/completions/hopsig`
/// (or `source <(hopsig completions bash)`); zsh: `hopsig completions zsh >
/// "${fpath[1]}/_hopsig"`; fish: `hopsig completions fish >
/// ~/.config/fish/completions/hopsig.fish`.
#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    shell: Shell,
}

/// Print hopsig's manual page (roff) on standard output, or write one page per
/// command with `--out`.
///
/// `hopsig man | man -l -` reads it; `hopsig man --out DIR` writes hopsig.1 and
/// hopsig-COMMAND[-SUBCOMMAND].1 for every command, for /usr/share/man/man1.
#[derive(clap::Args)]
pub struct ManArgs {
    /// Write every page into this folder instead (it must exist).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace pages that exist in DIR.
    #[arg(long, requires = "out")]
    force: bool,
}

/// The script of `shell` for the whole command line.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut cmd = crate::Cli::command();
    let mut out = Vec::new();
    match shell {
        Shell::Bash => {
            clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, "hopsig", &mut out)
        }
        Shell::Zsh => {
            clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, "hopsig", &mut out)
        }
        Shell::Fish => {
            clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, "hopsig", &mut out)
        }
    }
    out
}

/// Prints the script.
pub fn run_completions(args: CompletionsArgs) -> Outcome {
    print_generated(&completions(args.shell))
}

/// Every manual page, as (file name, roff text): hopsig.1 first, then one per
/// command and subcommand (`hopsig-bgpsec-inspect.1`), as `clap_mangen::generate_to`
/// names them (hidden commands and `help` left out).
pub fn man_pages() -> Result<Vec<(String, Vec<u8>)>, Failure> {
    fn walk(cmd: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<(), Failure> {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut text = Vec::new();
        man.render(&mut text)
            .map_err(|e| Failure::Input(format!("manual page: {e}")))?;
        pages.push((man.get_filename(), text));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, pages)?;
        }
        Ok(())
    }
    let mut cmd = crate::Cli::command().disable_help_subcommand(true);
    // Built, so that subcommands carry their full names (hopsig-bgpsec-inspect).
    cmd.build();
    let mut pages = Vec::new();
    walk(&cmd, &mut pages)?;
    Ok(pages)
}

/// Prints hopsig.1, or writes every page into `--out` (through [`io::outputs`]: all or
/// none, never over an existing page without `--force`).
pub fn run_man(args: ManArgs) -> Outcome {
    let pages = man_pages()?;
    let Some(dir) = args.out else {
        let (_, top) = pages
            .first()
            .ok_or_else(|| Failure::Input("no manual page".into()))?;
        return print_generated(top);
    };
    if !dir.is_dir() {
        return Err(io::at(&dir, "not a folder"));
    }
    let mut files = outputs(args.force, std::iter::empty());
    let paths: Vec<PathBuf> = pages.iter().map(|(name, _)| dir.join(name)).collect();
    for path in &paths {
        files.check(path)?;
    }
    for (path, (_, text)) in paths.iter().zip(&pages) {
        files.add(path, text, Secrecy::Public)?;
    }
    files.commit()?;
    io::say(format_args!(
        "wrote: {} manual pages in {}",
        pages.len(),
        dir.display()
    ))
}
