#include "core/thread_pool.hpp"


namespace oflow {

void ThreadPool::band_rows(int rows, int bands, int band, int* y0, int* y1) {
    *y0 = static_cast<int>(static_cast<long long>(rows) * band / bands);
    *y1 = static_cast<int>(static_cast<long long>(rows) * (band + 1) / bands);
}

void* ThreadPool::trampoline(void* slot) {
    Slot* s = static_cast<Slot*>(slot);
    s->pool->worker(s->index);
    return nullptr;
}

bool ThreadPool::start(int threads) {
    threads_ = 1;
    quit_ = false;
    for (int i = 0; i + 1 < threads; ++i) {
        slots_[i] = Slot{this, i + 1};
        if (pthread_create(&workers_[i], nullptr, &ThreadPool::trampoline, &slots_[i]) != 0) {
            stop();
            return false;
        }
        threads_ = i + 2;
    }
    return true;
}

void ThreadPool::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        quit_ = true;
    }
    start_cv_.notify_all();
    for (int i = 0; i + 1 < threads_; ++i) pthread_join(workers_[i], nullptr);
    threads_ = 1;
}

void ThreadPool::worker(int index) {
    unsigned long seen = 0;
    for (;;) {
        Job job;
        void* arg;
        int rows, bands;
        {
            std::unique_lock<std::mutex> lock(mu_);
            start_cv_.wait(lock, [&] { return quit_ || generation_ != seen; });
            if (quit_) return;
            seen = generation_;
            job = job_;
            arg = arg_;
            rows = rows_;
            bands = bands_;
        }
        if (index < bands) {
            int y0, y1;
            band_rows(rows, bands, index, &y0, &y1);
            job(arg, y0, y1, index);
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (--pending_ == 0) done_cv_.notify_one();
        }
    }
}

void ThreadPool::run(int rows, Job job, void* arg) {
    const int nb = bands(rows);
    if (threads_ == 1 || nb == 1) {
        job(arg, 0, rows, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        job_ = job;
        arg_ = arg;
        rows_ = rows;
        bands_ = nb;
        pending_ = threads_ - 1;
        ++generation_;
    }
    start_cv_.notify_all();
    int y0, y1;
    band_rows(rows, nb, 0, &y0, &y1);
    job(arg, y0, y1, 0);
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
}

} // namespace oflow
