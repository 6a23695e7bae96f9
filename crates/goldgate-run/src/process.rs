//! Pipeline processes: `sh -c COMMAND` started in a process group of its own, in the
//! configured directory with the configured environment (the CI's tokens withheld, see
//! [`super::config::EnvPolicy`]), and the guard that kills the whole group (grandchildren
//! included) when a call ends early — a timeout, an oversized answer, Ctrl-C, or a call that
//! is abandoned.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;

use tokio::process::Command;

use super::call::CallError;
use super::config::{EnvPolicy, PipelineConfig};
use goldgate_core::runfile::record::ErrorKind;

/// Kills a process group when dropped, unless disarmed (the call finished normally).
pub struct GroupGuard(pub(super) Option<i32>);

impl GroupGuard {
    pub fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            // SAFETY: killpg only sends a signal; an already-gone group is harmless (ESRCH).
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How to start the pipeline's command, worked out once per run: the command, its
/// directory, and its environment (what to clear, set and remove).
#[derive(Clone, Debug)]
pub struct Launch {
    pub command: String,
    pub workdir: Option<PathBuf>,
    clear: bool,
    set: Vec<(OsString, OsString)>,
    remove: Vec<OsString>,
}

impl Launch {
    /// The launch of `command` under `config`'s directory and environment policy, read
    /// against goldgate's environment now.
    pub fn new(command: &str, config: &PipelineConfig) -> Launch {
        let (set, remove) = environment(&config.env, std::env::vars_os());
        Launch {
            command: command.to_string(),
            workdir: config.workdir.clone(),
            clear: config.env.clear,
            set,
            remove,
        }
    }

    /// The `PATH` the command gets (`None`: not set at all).
    pub fn path_var(&self) -> Option<OsString> {
        if self.clear {
            return self
                .set
                .iter()
                .find(|(k, _)| k == "PATH")
                .map(|(_, v)| v.clone());
        }
        std::env::var_os("PATH")
    }

    /// A `std` command for `program` with this launch's directory and environment.
    fn std_command(&self, program: &str) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        if self.clear {
            c.env_clear();
        }
        c.envs(self.set.iter().map(|(k, v)| (k, v)));
        for name in &self.remove {
            c.env_remove(name);
        }
        if let Some(dir) = &self.workdir {
            c.current_dir(dir);
        }
        c
    }

    /// Start `sh -c command` with piped stdin and stdout in a process group of its own, and
    /// the guard that kills that group.
    pub fn spawn(&self, stderr: Stdio) -> Result<(tokio::process::Child, GroupGuard), CallError> {
        let mut command = Command::from(self.std_command("sh"));
        let child = command
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                CallError::new(
                    ErrorKind::Spawn,
                    format!("cannot start `{}`: {e}", self.command),
                )
            })?;
        let guard = GroupGuard(child.id().map(|pid| pid as i32));
        Ok((child, guard))
    }
}

/// What a command's environment does with goldgate's `vars`: the variables to set (all of
/// them when the environment is cleared: the kept ones and the passed-through ones), and
/// the withheld ones to remove (when it is not).
fn environment(
    policy: &EnvPolicy,
    vars: impl Iterator<Item = (OsString, OsString)>,
) -> (Vec<(OsString, OsString)>, Vec<OsString>) {
    let mut set = Vec::new();
    let mut remove = Vec::new();
    for (name, value) in vars {
        let text = name.to_string_lossy();
        let passed = policy.passes(&text);
        if policy.clear {
            if passed || policy.kept_when_clear.iter().any(|k| *k == text) {
                set.push((name, value));
            }
        } else if !passed && policy.withheld.iter().any(|w| *w == text) {
            remove.push(name);
        }
    }
    (set, remove)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> impl Iterator<Item = (OsString, OsString)> {
        [
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("GH_TOKEN", "gho_y"),
            ("OPENAI_API_KEY", "sk"),
            ("LANG", "C"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
    }

    fn names(list: &[(OsString, OsString)]) -> Vec<String> {
        list.iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn withheld_variables_are_removed_unless_passed_through() {
        let mut policy = EnvPolicy {
            withheld: vec!["GITHUB_TOKEN".into(), "GH_TOKEN".into()],
            kept_when_clear: vec!["PATH".into(), "HOME".into()],
            ..EnvPolicy::default()
        };
        let (set, remove) = environment(&policy, vars());
        assert!(set.is_empty());
        assert_eq!(
            remove,
            vec![OsString::from("GITHUB_TOKEN"), "GH_TOKEN".into()]
        );
        policy.passthrough = vec!["GH_TOKEN".into()];
        let (_, remove) = environment(&policy, vars());
        assert_eq!(remove, vec![OsString::from("GITHUB_TOKEN")]);
    }

    #[test]
    fn a_cleared_environment_keeps_path_home_and_the_passthrough_list() {
        let policy = EnvPolicy {
            clear: true,
            passthrough: vec!["OPENAI_*".into(), "GH_TOKEN".into()],
            withheld: vec!["GITHUB_TOKEN".into(), "GH_TOKEN".into()],
            kept_when_clear: vec!["PATH".into(), "HOME".into()],
        };
        let (set, remove) = environment(&policy, vars());
        assert_eq!(names(&set), ["PATH", "HOME", "GH_TOKEN", "OPENAI_API_KEY"]);
        assert!(remove.is_empty());
    }
}
