#include "core/init_dis.hpp"

#include "core/context.hpp"
#include "core/flow_driver.hpp"

#include <cstring>

namespace oflow {

of_config init_dis_config(const of_config& parent, of_backend backend) {
    of_config d;
    of_config_init(&d, OF_ALGO_DIS); // DIS's defaults: MEDIUM, LEVEL_NORM, no texture rule
    d.backend = backend;
    d.threads = parent.threads; // it runs on the parent's pool (context_create's borrow_pool)
    d.format = parent.format;
    d.max_width = parent.max_width;
    d.max_height = parent.max_height;
    d.levels = static_cast<uint32_t>(init_dis_levels(static_cast<int>(parent.max_width), static_cast<int>(parent.max_height)));
    if (backend == OF_BACKEND_CUDA) { // cuda/init_dis_cuda.cu: the parent's storage and board table
        d.precision = parent.precision;
        d.platform = parent.platform;
        d.tuning_path = parent.tuning_path; // a board known only from the parent's table file
    }
    return d;
}

int init_dis_levels(int w, int h) {
    LevelDims dims[kMaxLevels];
    return pyramid_dims(w, h, 0, 0.5f, dims, kInitMinSide);
}

of_status init_dis_run_cpu(of_context* c, const of_image& prev, const of_image& next) {
    of_context* d = c->init;
    // Levels follow the frame (a smaller frame needs fewer): never more than planned, as the
    // level count is monotone in the size.
    d->cfg.levels = static_cast<uint32_t>(init_dis_levels(static_cast<int>(prev.width), static_cast<int>(prev.height)));
    Frame f;
    f.c = c;
    f.levels = pyramid_dims(static_cast<int>(prev.width), static_cast<int>(prev.height), 1, 0.5f, f.dims);
    const Plane u1 = f.work(kBufInitU1, 0), u2 = f.work(kBufInitU2, 0);
    of_flow out;
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.layout = OF_FLOW_PLANAR;
    out.memory = OF_MEMORY_HOST;
    out.width = prev.width;
    out.height = prev.height;
    out.stride = static_cast<std::size_t>(u1.pitch) * sizeof(float);
    out.u = u1.data;
    out.v = u2.data;
    out.format = OF_FLOW_FORMAT_F32;
    const of_status s = flow_process_cpu(d, prev, next, out);
    if (s != OF_OK) return c->sink().fail(s, "init dis: %s", d->error);
    return OF_OK;
}

void init_fuse_cpu(const Frame& f, int l, Plane u1, Plane u2) {
    of_context* c = f.c;
    const KernelTable& k = c->kt;
    const Plane s1 = f.work(kBufInitU1, 0), s2 = f.work(kBufInitU2, 0);
    const Plane d1 = f.work(kBufInitD1, l), d2 = f.work(kBufInitD2, l), diff = f.work(kBufInitCost, l);
    const Plane rows = f.work(kBufTmp, l);
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    const float mx = static_cast<float>(u1.w) / static_cast<float>(s1.w);
    const float my = static_cast<float>(u1.h) / static_cast<float>(s1.h);
    for_rows(c, u1.h, [&](int y0, int y1, int) {
        k.init_area(s1, d1, mx, y0, y1);
        k.init_area(s2, d2, my, y0, y1);
    });
    for_rows(c, u1.h, [&](int y0, int y1, int) { k.init_cost(i0, i1, u1, u2, d1, d2, diff, y0, y1); });
    for_rows(c, u1.h, [&](int y0, int y1, int) { k.init_box_rows(diff, rows, kInitFuseRadius, y0, y1); });
    for_rows(c, u1.h, [&](int y0, int y1, int) { k.init_choose(rows, d1, d2, u1, u2, kInitFuseRadius, y0, y1); });
}

} // namespace oflow
