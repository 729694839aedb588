#if canImport(Glibc)
import Glibc
#endif

/// A batch engine that starts one copy of a command per index and tells each its index
/// through the environment: where `--shard auto` looks. Each reads its index (0-based
/// once read) and, where the engine exports it, the count; `read` is nil when the
/// engine's index variable is unset.
struct ShardEngine: Sendable {
    /// The name `--report` records: "kubernetes", "aws-batch", "cloud-run", "slurm".
    let name: String
    /// Said in messages: "a Kubernetes Indexed Job".
    let title: String
    let indexVariable: String
    let read: @Sendable ([String: String]) throws -> (index: Int, count: Int?)?

    /// The engines in the order messages name them.
    static let all: [ShardEngine] = [
        // Kubernetes and AWS Batch do not export the count: `--shard auto/N` gives it.
        ShardEngine(name: "kubernetes", title: "a Kubernetes Indexed Job", indexVariable: "JOB_COMPLETION_INDEX") { env in
            try env["JOB_COMPLETION_INDEX"].map { (try number("JOB_COMPLETION_INDEX", $0), nil) }
        },
        ShardEngine(name: "aws-batch", title: "an AWS Batch array job", indexVariable: "AWS_BATCH_JOB_ARRAY_INDEX") { env in
            try env["AWS_BATCH_JOB_ARRAY_INDEX"].map { (try number("AWS_BATCH_JOB_ARRAY_INDEX", $0), nil) }
        },
        ShardEngine(name: "cloud-run", title: "a Cloud Run job", indexVariable: "CLOUD_RUN_TASK_INDEX") { env in
            try env["CLOUD_RUN_TASK_INDEX"].map {
                (try number("CLOUD_RUN_TASK_INDEX", $0), try env["CLOUD_RUN_TASK_COUNT"].map { try number("CLOUD_RUN_TASK_COUNT", $0) })
            }
        },
        // An array like --array=1-64 starts at 1, and --array=0-62:2 steps: the index is
        // the task's place among the array's tasks.
        ShardEngine(name: "slurm", title: "a Slurm array", indexVariable: "SLURM_ARRAY_TASK_ID") { env in
            guard let id = env["SLURM_ARRAY_TASK_ID"] else { return nil }
            let task = try number("SLURM_ARRAY_TASK_ID", id)
            let min = try env["SLURM_ARRAY_TASK_MIN"].map { try number("SLURM_ARRAY_TASK_MIN", $0) } ?? 0
            let step = try env["SLURM_ARRAY_TASK_STEP"].map { try number("SLURM_ARRAY_TASK_STEP", $0) } ?? 1
            guard task >= min, step >= 1, (task - min) % step == 0 else {
                throw UsageError(message: "--shard auto: SLURM_ARRAY_TASK_ID=\(id) is not a task of an array from SLURM_ARRAY_TASK_MIN=\(min) in steps of \(step)")
            }
            return ((task - min) / step, try env["SLURM_ARRAY_TASK_COUNT"].map { try number("SLURM_ARRAY_TASK_COUNT", $0) })
        },
    ]

    /// Every variable an engine reads, from this process's environment.
    static func environment() -> [String: String] {
        let names = ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT",
                     "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT"]
        var found: [String: String] = [:]
        for name in names { if let v = getenv(name) { found[name] = String(cString: v) } }
        return found
    }

    private static func number(_ variable: String, _ text: String) throws -> Int {
        guard let n = Int(text), n >= 0 else {
            throw UsageError(message: "--shard auto: \(variable)='\(text)' is not a whole number from 0")
        }
        return n
    }
}
