#include "spillway/bench/plan_workload.h"

#include <utility>

#include "spillway/vfs/fault_injecting_file_system.h"

namespace spillway::bench {

PlanWorkload::PlanWorkload(const std::vector<std::string>& local_dirs) {
  eager.mode = DiskManagerMode::kDirectories;
  eager.spill.local_dirs = local_dirs;
  lazy.spill.local_dirs = local_dirs;
}

StatusOr<PlanDiskManagerFactory> PlanWorkload::Factory(
    const std::shared_ptr<FileSystem>& fs) const {
  return NewPlanDiskManagerFactory(fs, lazy);
}

StatusOr<std::shared_ptr<SpillManager>> PlanWorkload::Build(
    const std::shared_ptr<FileSystem>& fs, PlanMode mode,
    const PlanDiskManagerFactory& factory) const {
  if (mode == PlanMode::kEager) {
    StatusOr<std::shared_ptr<DiskManager>> m = NewDiskManager(fs, eager);
    if (!m.ok()) return m.status();
    return std::shared_ptr<SpillManager>(std::move(*m));
  }
  StatusOr<std::shared_ptr<PlanDiskManager>> m = factory.NewPlan();
  if (!m.ok()) return m.status();
  return std::shared_ptr<SpillManager>(std::move(*m));
}

FirstSpillWorkload::FirstSpillWorkload(const std::vector<std::string>& local_dirs,
                                       SpillDirLayout layout) {
  options.spill.local_dirs = local_dirs;
  options.spill.layout = layout;
}

StatusOr<PlanDiskManagerFactory> FirstSpillWorkload::Factory(
    const std::shared_ptr<FileSystem>& fs) const {
  return NewPlanDiskManagerFactory(fs, options);
}

Status RunFirstSpill(const PlanDiskManagerFactory& factory) {
  StatusOr<std::shared_ptr<PlanDiskManager>> plan = factory.NewPlan();
  if (!plan.ok()) return plan.status();
  StatusOr<SpillFile> file = (*plan)->CreateTempFile("sort");
  return file.status();
}

StatusOr<FirstSpillCalls> CountFirstSpillCalls(const std::shared_ptr<FileSystem>& fs,
                                               const FirstSpillWorkload& workload) {
  auto counter = NewFaultInjectingFileSystem(fs);
  StatusOr<PlanDiskManagerFactory> factory = workload.Factory(counter);
  if (!factory.ok()) return factory.status();
  for (uint64_t i = 0; i < kCountedUnits; ++i) SPILLWAY_RETURN_IF_ERROR(RunFirstSpill(*factory));
  const auto per_spill = [](uint64_t calls) { return static_cast<double>(calls) / kCountedUnits; };
  return FirstSpillCalls{per_spill(counter->calls(OpKind::kMkdir)),
                         per_spill(counter->calls(OpKind::kCreate)),
                         per_spill(counter->total_calls())};
}

StatusOr<double> CountCallsPerUnit(
    const std::shared_ptr<FileSystem>& fs,
    const std::function<Status(const std::shared_ptr<FileSystem>&)>& unit) {
  auto counter = NewFaultInjectingFileSystem(fs);
  const std::shared_ptr<FileSystem> counted = counter;
  for (uint64_t i = 0; i < kCountedUnits; ++i) SPILLWAY_RETURN_IF_ERROR(unit(counted));
  return static_cast<double>(counter->total_calls()) / kCountedUnits;
}

Status CheckNothingLeft(FileSystem& fs, const std::vector<std::string>& local_dirs) {
  for (const std::string& dir : local_dirs) {
    StatusOr<std::vector<DirEntry>> entries = fs.ListDir(dir);
    if (!entries.ok()) return entries.status();
    if (!entries->empty()) {
      return Status::InvalidArgument("left behind after its plan was dropped: " +
                                     JoinPath(dir, entries->front().name));
    }
  }
  return OkStatus();
}

}  // namespace spillway::bench
