// A fixed pool of worker threads, created at of_create and joined at of_destroy. run()
// splits rows [0, rows) into at most `threads` contiguous bands, runs band 0 on the caller
// and the rest on the workers, and returns when all are done. Nothing is allocated per call:
// the job is a function pointer plus an opaque argument.
//
// Invariant: band b always gets the same rows for the same (rows, threads), so per-band
// reductions combined in band order are deterministic.
//
// Workers are POSIX threads started with a static trampoline: unlike std::thread this
// allocates nothing from the heap, so a context on a caller's arena allocates nothing at all
// (the OS maps the thread stacks).
#ifndef OFLOW_CORE_THREAD_POOL_HPP
#define OFLOW_CORE_THREAD_POOL_HPP

#include <pthread.h>

#include <condition_variable>
#include <mutex>

namespace oflow {

const int kMaxThreads = 64;

class ThreadPool {
public:
    using Job = void (*)(void* arg, int y0, int y1, int band);

    ThreadPool() = default;
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;
    ~ThreadPool() { stop(); }

    /// Starts threads-1 workers. False (and no workers) when a thread cannot be created.
    bool start(int threads);
    void stop();
    int threads() const { return threads_; }

    /// Number of bands run() uses for `rows` rows.
    int bands(int rows) const { return rows < threads_ ? (rows < 1 ? 1 : rows) : threads_; }

    void run(int rows, Job job, void* arg);

    /// Convenience for lambdas: f(y0, y1, band).
    template <class F>
    void for_rows(int rows, F& f) {
        run(rows, [](void* a, int y0, int y1, int band) { (*static_cast<F*>(a))(y0, y1, band); }, &f);
    }

private:
    struct Slot {
        ThreadPool* pool;
        int index;
    };
    static void* trampoline(void* slot);
    void worker(int index);
    static void band_rows(int rows, int bands, int band, int* y0, int* y1);

    int threads_ = 1;
    pthread_t workers_[kMaxThreads - 1];
    Slot slots_[kMaxThreads - 1];
    std::mutex mu_;
    std::condition_variable start_cv_, done_cv_;
    unsigned long generation_ = 0;
    int pending_ = 0;
    bool quit_ = false;
    Job job_ = nullptr;
    void* arg_ = nullptr;
    int rows_ = 0, bands_ = 0;
};

} // namespace oflow

#endif
