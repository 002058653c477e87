#include "compare/external_scheduler.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/evaluate/generic_fused_kernel.h"
#include "common/hw/config_files.h"
#include "common/onnx/onnx_io.h"
#include "common/util/resources.h"
#include "compare/comparison.h"

extern char** environ;

namespace dgs {

namespace {

namespace fs = std::filesystem;

// The plan in `file`, for `g`, priced on a GPU under GENERIC_FUSED_KERNEL_RULE (named in the
// note) where it has fused tasks.
ScheduleResult plan_file_result(const Graph& g, const HardwareSpec& hw, const std::string& file) {
  ScheduleResult r;
  r.plan = plan_from_json(read_file(file), g, file);
  r.evaluation.gpu_fused_kernels = generic_fused_kernel;
  bool fused = false;
  for (const Stage& stage : r.plan.stages)
    for (const Task& t : stage.tasks) fused = fused || t.kind == TaskKind::Fused;
  if (hw.kind == "gpu" && fused)
    r.search.note = std::string("fused tasks: ") + kGenericFusedKernelRuleName;
  return r;
}

// The last non-empty line of a file ("" if none or unreadable).
std::string last_line(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error&) {
    return "";
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const size_t nl = text.find_last_of('\n');
  std::string line = nl == std::string::npos ? text : text.substr(nl + 1);
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

struct ProcessOutcome {
  bool timed_out = false;
  bool signalled = false;
  int status = 0;  // exit status, or the signal
};

// Runs argv[0] with `argv` in `dir`, output to `log`, in its own process group; kills the group
// after `timeout_s`.
ProcessOutcome run_process(const std::vector<std::string>& argv, const std::string& dir,
                           const std::string& log, double timeout_s) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child starts in `dir` (the program path is absolute).
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
  ProcessOutcome out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int wstatus = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &wstatus, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      out.timed_out = true;
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-pid, SIGKILL);  // anything the program left running in its group
  if (WIFSIGNALED(wstatus)) {
    out.signalled = true;
    out.status = WTERMSIG(wstatus);
  } else {
    out.status = WEXITSTATUS(wstatus);
  }
  return out;
}

class ExternalScheduler final : public Scheduler {
 public:
  ExternalScheduler(std::string program, std::vector<std::string> args, double timeout_s,
                    std::string work_root)
      : program_(std::move(program)),
        args_(std::move(args)),
        timeout_s_(timeout_s),
        work_root_(std::move(work_root)) {}
  std::string name() const override { return "cmd:" + fs::path(program_).filename().string(); }
  std::string paper() const override { return "external"; }
  std::string description() const override {
    return "your program " + program_ + " (protocol: compare/external_scheduler.h)";
  }
  std::vector<std::string> hardware_kinds() const override { return {"gpu", "dsa"}; }

  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    const fs::path work =
        fs::absolute(fs::path(work_root_) / safe_file_stem(g.name + "@" + hw.name + "@" + name()));
    fs::create_directories(work);
    const std::string graph_file = (work / "graph.onnx").string();
    const std::string hw_file = (work / "hw.json").string();
    const std::string plan_file = (work / "plan.json").string();
    const std::string log = (work / "log.txt").string();
    std::error_code ec;
    fs::remove(plan_file, ec);
    save_onnx_file(g, graph_file);
    write_file_atomic(hw_file, read_hardware_config(hw.file).text);
    std::vector<std::string> argv = {fs::absolute(program_).string(),
                                     "--graph",
                                     graph_file,
                                     "--hw",
                                     hw_file,
                                     "--out",
                                     plan_file};
    argv.insert(argv.end(), args_.begin(), args_.end());
    const ProcessOutcome o = run_process(argv, work.string(), log, timeout_s_);
    const std::string who = name() + ": ";
    if (o.timed_out)
      throw Error(who + "timed out after " + std::to_string(static_cast<int>(timeout_s_)) +
                  " s (--scheduler-timeout; log " + log + ")");
    if (o.signalled)
      throw Error(who + "killed by signal " + std::to_string(o.status) + " (log " + log + ")");
    if (o.status == kExternalNotApplicableStatus)
      throw SchedulerNotApplicable(
          who + (last_line(log).empty() ? "declined (exit status 3)" : last_line(log)));
    if (o.status != 0)
      throw Error(who + "exited with status " + std::to_string(o.status) + ": " + last_line(log) +
                  " (log " + log + ")");
    if (!fs::is_regular_file(plan_file))
      throw Error(who + "exited 0 but wrote no plan (" + plan_file + ")");
    return plan_file_result(g, hw, plan_file);
  }

 private:
  std::string program_;
  std::vector<std::string> args_;
  double timeout_s_;
  std::string work_root_;
};

class PlanFileScheduler final : public Scheduler {
 public:
  PlanFileScheduler(std::string name, std::string file)
      : name_(std::move(name)), file_(std::move(file)) {}
  std::string name() const override { return name_; }
  std::string paper() const override { return "external"; }
  std::string description() const override { return "the plan file " + file_; }
  std::vector<std::string> hardware_kinds() const override { return {"gpu", "dsa"}; }
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    return plan_file_result(g, hw, file_);
  }

 private:
  std::string name_, file_;
};

}  // namespace

std::unique_ptr<Scheduler> make_external_scheduler(const std::string& program,
                                                   std::vector<std::string> args, double timeout_s,
                                                   std::string work_root) {
  std::error_code ec;
  if (program.empty()) throw UsageError("--scheduler cmd:: no program after 'cmd:'");
  if (!fs::is_regular_file(program, ec) || access(program.c_str(), X_OK) != 0)
    throw UsageError("--scheduler cmd:" + program + ": not an executable file");
  return std::make_unique<ExternalScheduler>(program, std::move(args), timeout_s,
                                             std::move(work_root));
}

std::unique_ptr<Scheduler> make_plan_file_scheduler(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw UsageError("--plan '" + spec + "': expected NAME=FILE");
  const std::string name = spec.substr(0, eq), file = spec.substr(eq + 1);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw UsageError("--plan " + spec + ": no such file");
  return std::make_unique<PlanFileScheduler>(name, file);
}

}  // namespace dgs
