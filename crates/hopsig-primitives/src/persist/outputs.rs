//! [`Outputs`]: the files one command produces, placed together or not at all (the
//! module documentation of [`super`] gives the discipline).

use super::*;

#[derive(Debug)]
struct Staged {
    dest: PathBuf,
    /// The temporary name, `None` once it no longer exists (renamed or removed).
    tmp: Option<PathBuf>,
}

/// The output files of one command, written crash-safely and placed all together or
/// not at all.
///
/// 1. [`Outputs::input`] names the command's inputs; [`Outputs::check`] tests a
///    destination against the rules before any expensive work (a benchmark run).
/// 2. [`Outputs::add`] (or [`Outputs::add_with`]) stages a file: a temporary file
///    created exclusively in the destination's folder (mode 0600 set on the
///    descriptor first, for secrets), written, fsynced. A write error (a full disk,
///    `EFBIG`) removes it; nothing is placed yet.
/// 3. [`Outputs::commit`] places the staged files in order: without
///    [`Replace::Force`] by hard-linking the temporary file to the destination and
///    unlinking it (`link` fails if the name exists, so a file that appears meanwhile
///    is never replaced); with it by `rename`. Then each folder is fsynced. If a
///    placement fails, those already placed are undone: new names are unlinked and
///    replaced files are renamed back from the hard-link backup taken just before.
///
/// Dropping `Outputs` without committing (an error on the way) removes every temporary
/// file and the folders [`Outputs::folder`] created, if they are still empty.
///
/// **What a crash can leave.** Each placed file is complete (its bytes were fsynced
/// before its name appeared). POSIX has no call that moves several names at once, so
/// a crash *between* two placements of one commit leaves the files placed so far,
/// and a crash at any point may leave hidden `.NAME.PID.N.hopsig-tmp` / `-old`
/// files beside the destinations, which are safe to delete. A crash never leaves a
/// half-written or empty file under a destination name.
///
/// Placement needs hard links (every POSIX local file system and NFS has them; FAT
/// does not, and there placement fails with an error rather than risk replacing a
/// file).
#[derive(Debug)]
pub struct Outputs {
    replace: Replace,
    inputs: Vec<(FileId, PathBuf)>,
    staged: Vec<Staged>,
    created_folders: Vec<PathBuf>,
    committed: bool,
}

impl Outputs {
    /// No outputs yet; existing destinations are treated as `replace` says.
    pub fn new(replace: Replace) -> Self {
        Outputs {
            replace,
            inputs: Vec::new(),
            staged: Vec::new(),
            created_folders: Vec::new(),
            committed: false,
        }
    }

    /// Names a file the command reads: no output may be that file (same device and
    /// inode, following symlinks), even with [`Replace::Force`]. A path that does not
    /// exist names nothing.
    pub fn input(&mut self, path: &Path) -> &mut Self {
        if let Ok(meta) = std::fs::metadata(path) {
            self.inputs.push((FileId::of(&meta), path.to_path_buf()));
        }
        self
    }

    /// The replacement and input rules for `dest`, and that no other output has its
    /// name.
    fn rules(&self, dest: &Path) -> Result<(), PersistError> {
        if self.staged.iter().any(|s| s.dest == dest) {
            return Err(io_error(dest, "write")(io::Error::new(
                io::ErrorKind::InvalidInput,
                "named twice as an output of one command",
            )));
        }
        self.replace_rules(dest)
    }

    /// The replacement and input rules for `dest`: checked when it is staged and
    /// again just before it is placed (an input may have been moved or the
    /// destination created meanwhile). Only a regular file is ever replaced: a
    /// device, FIFO or socket (or a symlink leading to one) is refused whatever
    /// `replace` says, a symlink is refused with [`Replace::Force`] too.
    fn replace_rules(&self, dest: &Path) -> Result<(), PersistError> {
        let not_regular = |what: String| PersistError::NotRegularOutput {
            path: dest.to_path_buf(),
            what,
        };
        // symlink_metadata also sees a dangling symlink, which `link` would refuse.
        let named = std::fs::symlink_metadata(dest);
        if let Ok(meta) = std::fs::metadata(dest) {
            let id = FileId::of(&meta);
            if let Some((_, input)) = self.inputs.iter().find(|(i, _)| *i == id) {
                return Err(PersistError::IsInput {
                    path: dest.to_path_buf(),
                    input: input.clone(),
                });
            }
            if meta.is_dir() {
                return Err(io_error(dest, "write")(io::Error::from(
                    io::ErrorKind::IsADirectory,
                )));
            }
            if !meta.is_file() {
                let what = kind_of(meta.file_type());
                return Err(not_regular(match &named {
                    Ok(link) if link.file_type().is_symlink() => {
                        format!("symbolic link to a {what}")
                    }
                    _ => what.to_string(),
                }));
            }
        }
        match named {
            Ok(_) if self.replace == Replace::Never => Err(PersistError::Exists {
                path: dest.to_path_buf(),
            }),
            Ok(meta) if !meta.is_file() => Err(not_regular(kind_of(meta.file_type()).into())),
            _ => Ok(()),
        }
    }

    /// Checks now that `dest` could be written: the rules above, and that a temporary
    /// file can be created in its folder (created and removed again). Call it before
    /// long work whose result goes to `dest`; [`Outputs::add`] and
    /// [`Outputs::commit`] check again.
    ///
    /// # Errors
    /// [`PersistError::Exists`], [`PersistError::IsInput`],
    /// [`PersistError::NotRegularOutput`], or [`PersistError::Io`] if the folder is
    /// missing or not writable.
    pub fn check(&self, dest: &Path) -> Result<(), PersistError> {
        self.rules(dest)?;
        let (tmp, file) = create_temp(dest, Secrecy::Public)?;
        drop(file);
        std::fs::remove_file(&tmp).map_err(io_error(&tmp, "remove"))
    }

    /// Creates the folder `dir` (mode 0777 less the umask) and missing parents if
    /// needed. Those it created are removed again if the outputs are dropped
    /// uncommitted and the folders are still empty.
    ///
    /// # Errors
    /// [`PersistError::Io`] if a folder cannot be created or `dir` is not a folder.
    pub fn folder(&mut self, dir: &Path) -> Result<(), PersistError> {
        let created = create_folders(dir, 0o777)?;
        self.created_folders.extend(created);
        Ok(())
    }

    /// Stages `bytes` for `dest`.
    ///
    /// # Errors
    /// As [`Outputs::add_with`].
    pub fn add(&mut self, dest: &Path, bytes: &[u8], secrecy: Secrecy) -> Result<(), PersistError> {
        self.add_with(dest, secrecy, |w| w.write_all(bytes))
    }

    /// Stages the bytes `write` produces for `dest`: checks the rules, creates the
    /// temporary file, lets `write` fill it, fsyncs it.
    ///
    /// # Errors
    /// [`PersistError::Exists`], [`PersistError::IsInput`] or
    /// [`PersistError::NotRegularOutput`]; [`PersistError::Io`] if
    /// the temporary file cannot be created, written (then it is removed) or synced.
    pub fn add_with(
        &mut self,
        dest: &Path,
        secrecy: Secrecy,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), PersistError> {
        self.rules(dest)?;
        let (tmp, mut file) = create_temp(dest, secrecy)?;
        // Registered before writing, so that Drop removes it whatever fails below.
        self.staged.push(Staged {
            dest: dest.to_path_buf(),
            tmp: Some(tmp),
        });
        let written = write(&mut file).and_then(|()| file.flush());
        let result = written
            .map_err(io_error(dest, "write"))
            .and_then(|()| file.sync_all().map_err(io_error(dest, "sync")));
        if result.is_err() {
            if let Some(s) = self.staged.pop() {
                remove_temp(s);
            }
        }
        result
    }

    /// Places every staged file (see [`Outputs`]) and fsyncs their folders.
    ///
    /// # Errors
    /// The first placement error (after undoing the placements before it):
    /// [`PersistError::Exists`] if a destination appeared since it was checked and
    /// replacing is not allowed, [`PersistError::IsInput`],
    /// [`PersistError::NotRegularOutput`], [`PersistError::Io`]. An
    /// error syncing a folder comes after every file is placed and is not undone.
    pub fn commit(mut self) -> Result<(), PersistError> {
        let backups = self.staged.len() > 1 && self.replace == Replace::Force;
        // (index, backup of the file it replaced)
        let mut placed: Vec<(usize, Option<PathBuf>)> = Vec::new();
        for i in 0..self.staged.len() {
            let result = self
                .replace_rules(&self.staged[i].dest)
                .and_then(|()| self.place(i, backups));
            match result {
                Ok(backup) => placed.push((i, backup)),
                Err(e) => {
                    self.undo(&placed);
                    return Err(e);
                }
            }
        }
        self.committed = true;
        for (_, backup) in &placed {
            if let Some(b) = backup {
                let _ = std::fs::remove_file(b);
            }
        }
        let mut folders: Vec<&Path> = self
            .staged
            .iter()
            .map(|s| folder_of(&s.dest))
            .chain(self.created_folders.iter().map(|d| folder_of(d)))
            .collect();
        folders.sort_unstable();
        folders.dedup();
        for f in folders {
            sync_folder(f)?;
        }
        Ok(())
    }

    /// Places staged file `i`; returns the backup name of the file it replaced, if
    /// `backup` is asked for and there was one.
    fn place(&mut self, i: usize, backup: bool) -> Result<Option<PathBuf>, PersistError> {
        let s = &mut self.staged[i];
        let Some(tmp) = s.tmp.clone() else {
            return Err(io_error(&s.dest, "place")(io::Error::from(
                io::ErrorKind::NotFound,
            )));
        };
        match self.replace {
            Replace::Never => {
                std::fs::hard_link(&tmp, &s.dest).map_err(|e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        PersistError::Exists {
                            path: s.dest.clone(),
                        }
                    } else {
                        io_error(&s.dest, "place")(e)
                    }
                })?;
                if std::fs::remove_file(&tmp).is_ok() {
                    s.tmp = None;
                }
                Ok(None)
            }
            Replace::Force => {
                let kept = if backup && std::fs::symlink_metadata(&s.dest).is_ok() {
                    let b = name_beside(&s.dest, "old");
                    std::fs::hard_link(&s.dest, &b)
                        .map_err(io_error(&s.dest, "keep a backup of"))?;
                    Some(b)
                } else {
                    None
                };
                if let Err(e) = std::fs::rename(&tmp, &s.dest) {
                    if let Some(b) = &kept {
                        let _ = std::fs::remove_file(b);
                    }
                    return Err(io_error(&s.dest, "place")(e));
                }
                s.tmp = None;
                Ok(kept)
            }
        }
    }

    /// Undoes placements, last first: a replaced file comes back from its backup, a
    /// new name is removed. Best effort: this runs because something already failed.
    fn undo(&self, placed: &[(usize, Option<PathBuf>)]) {
        for (i, backup) in placed.iter().rev() {
            let dest = &self.staged[*i].dest;
            let _ = match backup {
                Some(b) => std::fs::rename(b, dest),
                None => std::fs::remove_file(dest),
            };
        }
    }
}

fn remove_temp(s: Staged) {
    if let Some(tmp) = s.tmp {
        let _ = std::fs::remove_file(tmp);
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        for s in self.staged.drain(..) {
            remove_temp(s);
        }
        if !self.committed {
            for d in self.created_folders.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    #[test]
    fn never_replaces_without_force_and_force_replaces_with_a_private_mode() {
        let d = temp_dir();
        let key = d.path().join("key");
        write(&key, b"one", Secrecy::Secret, Replace::Never).unwrap();
        assert_eq!(mode(&key), 0o600);
        let e = write(&key, b"two", Secrecy::Secret, Replace::Never).unwrap_err();
        assert!(matches!(e, PersistError::Exists { .. }), "{e}");
        assert_eq!(std::fs::read(&key).unwrap(), b"one");
        // A world-writable file replaced with --force: the secret is 0600, a new inode.
        std::fs::set_permissions(&key, Permissions::from_mode(0o666)).unwrap();
        let old = std::fs::metadata(&key).unwrap().ino();
        write(&key, b"three", Secrecy::Secret, Replace::Force).unwrap();
        assert_eq!(std::fs::read(&key).unwrap(), b"three");
        assert_eq!(mode(&key), 0o600);
        assert_ne!(std::fs::metadata(&key).unwrap().ino(), old);
        // A dangling symlink is an existing name too.
        let link = d.path().join("link");
        std::os::unix::fs::symlink(d.path().join("nowhere"), &link).unwrap();
        assert!(matches!(
            write(&link, b"x", Secrecy::Public, Replace::Never),
            Err(PersistError::Exists { .. })
        ));
        assert!(!d.path().join("nowhere").exists());
        assert_eq!(names(d.path()), ["key", "link"]);
    }

    #[test]
    fn force_replaces_only_regular_files() {
        let d = temp_dir();
        let socket = d.path().join("socket");
        let _listening = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let target = d.path().join("target");
        std::fs::write(&target, b"kept").unwrap();
        let (to_file, to_socket, dangling) = (
            d.path().join("to-file"),
            d.path().join("to-socket"),
            d.path().join("dangling"),
        );
        std::os::unix::fs::symlink(&target, &to_file).unwrap();
        std::os::unix::fs::symlink(&socket, &to_socket).unwrap();
        std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
        let what = |e: PersistError| match e {
            PersistError::NotRegularOutput { what, .. } => what,
            other => panic!("{other}"),
        };
        for (dest, is) in [
            (&socket, "socket"),
            (&to_socket, "symbolic link to a socket"),
            (&to_file, "symbolic link"),
            (&dangling, "symbolic link"),
        ] {
            let out = Outputs::new(Replace::Force);
            assert_eq!(what(out.check(dest).unwrap_err()), is);
            let e = write(dest, b"x", Secrecy::Secret, Replace::Force).unwrap_err();
            assert_eq!(what(e), is);
        }
        // Without --force a device, FIFO or socket is refused as such, not as a file
        // that --force could replace.
        let e = write(&socket, b"x", Secrecy::Public, Replace::Never).unwrap_err();
        assert_eq!(what(e), "socket");
        assert!(std::fs::symlink_metadata(&to_file).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"kept");
        assert_eq!(
            names(d.path()),
            ["dangling", "socket", "target", "to-file", "to-socket"]
        );
    }

    #[test]
    fn inputs_are_protected_by_inode_even_with_force() {
        let d = temp_dir();
        let input = d.path().join("input");
        std::fs::write(&input, b"precious").unwrap();
        let hard = d.path().join("hard");
        std::fs::hard_link(&input, &hard).unwrap();
        let soft = d.path().join("soft");
        std::os::unix::fs::symlink(&input, &soft).unwrap();
        for dest in [&input, &hard, &soft] {
            let mut out = Outputs::new(Replace::Force);
            out.input(&input);
            let e = out.check(dest).unwrap_err();
            assert!(matches!(e, PersistError::IsInput { .. }), "{e}");
            let e = out.add(dest, b"clobbered", Secrecy::Public).unwrap_err();
            assert!(matches!(e, PersistError::IsInput { .. }), "{e}");
        }
        assert_eq!(std::fs::read(&input).unwrap(), b"precious");
    }

    #[test]
    fn a_write_error_leaves_no_temporary_file_and_the_old_file_intact() {
        let d = temp_dir();
        let key = d.path().join("key");
        std::fs::write(&key, b"old key").unwrap();
        let mut out = Outputs::new(Replace::Force);
        out.add(&d.path().join("key.pub"), b"public", Secrecy::Public)
            .unwrap();
        let e = out
            .add_with(&key, Secrecy::Secret, |w| {
                w.write_all(b"half of the new ke")?;
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            })
            .unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        drop(out);
        // Neither the half-written key nor the already staged .pub appeared.
        assert_eq!(names(d.path()), ["key"]);
        assert_eq!(std::fs::read(&key).unwrap(), b"old key");
    }

    #[test]
    fn a_failed_placement_undoes_the_earlier_ones() {
        let d = temp_dir();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        let mut out = Outputs::new(Replace::Never);
        out.add(&a, b"A", Secrecy::Secret).unwrap();
        out.add(&b, b"B", Secrecy::Public).unwrap();
        // Another process creates b between staging and placing.
        std::fs::write(&b, b"theirs").unwrap();
        let e = out.commit().unwrap_err();
        assert!(matches!(e, PersistError::Exists { .. }), "{e}");
        assert_eq!(names(d.path()), ["b"]);
        assert_eq!(std::fs::read(&b).unwrap(), b"theirs");

        // With --force, a replaced file comes back when a later placement fails.
        std::fs::write(&a, b"old A").unwrap();
        let mut out = Outputs::new(Replace::Force);
        out.add(&a, b"new A", Secrecy::Public).unwrap();
        out.add(&b, b"new B", Secrecy::Public).unwrap();
        // b becomes a folder: renaming a file over it fails.
        std::fs::remove_file(&b).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(b.join("inside"), b"x").unwrap();
        assert!(out.commit().is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"old A");
        assert_eq!(names(d.path()), ["a", "b"]);
    }

    #[test]
    fn folders_created_for_outputs_go_away_when_nothing_is_written() {
        let d = temp_dir();
        let dir = d.path().join("pkg/inner");
        let mut out = Outputs::new(Replace::Never);
        out.folder(&dir).unwrap();
        out.add(&dir.join("pkg.key"), b"k", Secrecy::Secret)
            .unwrap();
        drop(out);
        assert!(names(d.path()).is_empty());
        let mut out = Outputs::new(Replace::Never);
        out.folder(&dir).unwrap();
        out.add(&dir.join("pkg.key"), b"k", Secrecy::Secret)
            .unwrap();
        out.add(&dir.join("params.pub"), b"p", Secrecy::Public)
            .unwrap();
        out.commit().unwrap();
        assert_eq!(names(&dir), ["params.pub", "pkg.key"]);
        // check() fails early for a missing folder or a file used as a folder.
        let out = Outputs::new(Replace::Never);
        assert!(out.check(&d.path().join("missing/x")).is_err());
        assert!(out.check(&dir.join("pkg.key/x")).is_err());
        assert!(out.check(&dir.join("fresh")).is_ok());
        assert_eq!(names(&dir), ["params.pub", "pkg.key"]);
    }
}
