#!/usr/bin/env bash
# Let the examples' sandbox isolate them on a GitHub-hosted runner (src/mkdocs_examples/docs/sandbox.md: "Where it runs").
# The runner's user gets unprivileged user namespaces (Ubuntu 24.04 restricts them with
# AppArmor) and a cgroup v2 of its own with the pids and memory controllers, into which this
# job's runner process moves, so that every later step runs inside it and the engine can give
# each example its own cgroup with pids.max and memory.max. The workflows require every
# protection (CI is set), so a runner without them fails before any example runs.
set -euo pipefail
sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
folder=/sys/fs/cgroup/examples
sudo mkdir -p "$folder/job"
echo "+pids +memory" | sudo tee "$folder/cgroup.subtree_control" > /dev/null
sudo chown -R "$(id -u):$(id -g)" "$folder"
runner=$(ps -o ppid= -p $$ | tr -d ' ')  # the process that starts each step
echo "$runner" | sudo tee "$folder/job/cgroup.procs" > /dev/null
