#include "core/plan.hpp"

#include "core/algorithm.hpp"
#include "core/census.hpp"
#include "core/init_dis.hpp"
#include "core/robust.hpp"
#include "core/schedule.hpp"

#include <limits>

namespace oflow {
namespace {

const std::size_t kSizeMax = std::numeric_limits<std::size_t>::max();

// a*b, false on overflow.
bool mul(std::size_t a, std::size_t b, std::size_t* out) {
    if (a != 0 && b > kSizeMax / a) return false;
    *out = a * b;
    return true;
}

bool align_up(std::size_t v, std::size_t a, std::size_t* out) {
    if (v > kSizeMax - (a - 1)) return false;
    *out = (v + a - 1) / a * a;
    return true;
}

bool plane_bytes(const LevelDims& d, std::size_t* out) {
    return mul(static_cast<std::size_t>(d.pitch), static_cast<std::size_t>(d.h), out) &&
           mul(*out, sizeof(float), out);
}

// Side of the next level: round(side * factor), in double so every int is exact.
int scaled(int side, float factor) { return static_cast<int>(side * static_cast<double>(factor) + 0.5); }

} // namespace

std::ptrdiff_t host_pitch(int w) { return (static_cast<std::ptrdiff_t>(w) + 15) / 16 * 16; }

int pyramid_min_side(of_robust r) { return r == OF_ROBUST_CENSUS ? kCensusMinSide : kPyramidMinSide; }

int pyramid_dims(int w, int h, int levels_cfg, float factor, LevelDims* dims, int min_side) {
    int levels = levels_cfg;
    if (levels <= 0) { // automatic: the coarsest side stays >= min_side px
        levels = 1;
        int cw = w, ch = h;
        while (levels < kMaxLevels) {
            int nw = scaled(cw, factor), nh = scaled(ch, factor);
            if (nw < min_side || nh < min_side) break;
            cw = nw;
            ch = nh;
            ++levels;
        }
    }
    if (levels > kMaxLevels) levels = kMaxLevels;
    int cw = w, ch = h;
    for (int l = 0; l < levels; ++l) {
        if (l > 0) {
            cw = scaled(cw, factor);
            ch = scaled(ch, factor);
            if (cw < 1) cw = 1;
            if (ch < 1) ch = 1;
        }
        dims[l].w = cw;
        dims[l].h = ch;
        dims[l].pitch = host_pitch(cw);
    }
    return levels;
}

const char* host_buffer_holds(int id) {
    switch (id) {
    case kBufContext: return "the context object";
    case kBufPyr0: return "CPU path: frame 0's pyramid, the CPU's levels (the frame)";
    case kBufPyr1: return "CPU path: frame 1's pyramid, the CPU's levels (the frame)";
    case kBufU1: return "CPU path: flow u1 at the current level";
    case kBufU2: return "CPU path: flow u2 at the current level";
    case kBufTmp: return "CPU path: the separable blur's scratch";
    case kBufPrevU1: return "CPU path: the coarser level's u1";
    case kBufPrevU2: return "CPU path: the coarser level's u2";
    case kBufBandSums: return "one 64-byte slot per thread band (reductions)";
    case kBufCudaState: return "CUDA path: its state (streams, events, graph handles)";
    case kBufStaging: return "CUDA path: the pinned staging (frames up, flow down; its regions are listed too)";
    case kBufTable: return "the board table read from config.tuning_path";
    case kBufSplitFlow: return "CUDA split: the CPU levels' flow on its way up";
    case kBufStreamFrame: return "CPU path: a stream's previous frame, as given (between calls)";
    case kBufWarmU1: return "CPU path: the warm level's u1 kept for a stream's next pair";
    case kBufWarmU2: return "CPU path: the warm level's u2 kept for a stream's next pair";
    case kBufExposureHist: return "CPU path: exposure histograms per thread band";
    case kBufPickU1: return "CPU path, robust pick: the best candidate's u1 (level 0)";
    case kBufPickU2: return "CPU path, robust pick: the best candidate's u2 (level 0)";
    case kBufPickConf: return "CPU path, robust pick: the best candidate's confidence plane (level 0)";
    case kBufPickN0: return "CPU path: frame 0 normalised, robust pick's judge and the confidence's";
    case kBufPickN1: return "CPU path: frame 1 normalised, robust pick's judge and the confidence's";
    case kBufInitArena: return "init dis: the DIS pass's context and host arena (CUDA: its state and staging)";
    case kBufInitU1: return "CPU path, init dis: DIS's u1 of the pair (level 0)";
    case kBufInitU2: return "CPU path, init dis: DIS's u2 of the pair (level 0)";
    case kBufInitD1: return "CPU path, init dis: DIS's u1 at the fused level";
    case kBufInitD2: return "CPU path, init dis: DIS's u2 at the fused level";
    case kBufInitCost: return "CPU path, init dis: the fused level's cost difference";
    default: return "CPU path: the algorithm's work plane";
    }
}

of_status make_plan(const of_config& cfg, const PlanInputs& in, Plan* plan) {
    Plan& p = *plan;
    p.backend = in.backend;
    p.levels = pyramid_dims(static_cast<int>(cfg.max_width), static_cast<int>(cfg.max_height),
                            static_cast<int>(cfg.levels), cfg.scale_factor, p.dims, pyramid_min_side(cfg.robust));
    const bool split = in.backend == OF_BACKEND_CUDA && in.split_from > 0;
    if (split && in.split_from >= p.levels) return OF_ERR_INVALID_ARGUMENT;
    p.split_from = split ? in.split_from : 0;
    const bool cpu = in.backend != OF_BACKEND_CUDA || split; // the CPU path runs some level
    const int first = p.split_from;                           // its finest level
    // Pyramid buffer: the CPU's levels back to back, each 64-byte aligned.
    std::size_t pyr = 0;
    for (int l = 0; l < kMaxLevels; ++l) p.level_offset[l] = 0;
    for (int l = first; l < p.levels; ++l) {
        std::size_t b = 0;
        if (!plane_bytes(p.dims[l], &b) || !align_up(pyr, kHostAlign, &pyr)) return OF_ERR_OVERFLOW;
        p.level_offset[l] = pyr;
        if (pyr > kSizeMax - b) return OF_ERR_OVERFLOW;
        pyr += b;
    }
    std::size_t plane0 = 0, plane1 = 0, split_flow = 0;
    if (!plane_bytes(p.dims[first], &plane0)) return OF_ERR_OVERFLOW;
    if (p.levels > first + 1 && !plane_bytes(p.dims[first + 1], &plane1)) return OF_ERR_OVERFLOW;
    if (split && !mul(static_cast<std::size_t>(p.dims[first].w) * static_cast<std::size_t>(p.dims[first].h),
                      2 * sizeof(float), &split_flow))
        return OF_ERR_OVERFLOW;
    std::size_t bands = 0, hist = 0;
    if (!mul(static_cast<std::size_t>(cfg.threads), 64, &bands)) return OF_ERR_OVERFLOW;
    // Exposure match histograms: only where the CPU builds the pyramids (not a CUDA split).
    if (in.backend != OF_BACKEND_CUDA && robust_matches_exposure(cfg.robust) &&
        !mul(static_cast<std::size_t>(cfg.threads), 2u * static_cast<std::size_t>(kExposureBins) * sizeof(unsigned), &hist))
        return OF_ERR_OVERFLOW;

    // Streams (core/stream.hpp): the CPU backends keep the previous frame as given (packed rows;
    // the CUDA path keeps it in the device arena), and where the CPU solves the warm level with
    // warm_start, the previous pair's flow of that level.
    std::size_t keep = 0, warm = 0;
    const std::size_t bpp = cfg.format == OF_PIXEL_U8 ? 1u : cfg.format == OF_PIXEL_U16 ? 2u : 4u;
    if (in.backend != OF_BACKEND_CUDA &&
        !mul(static_cast<std::size_t>(cfg.max_width) * static_cast<std::size_t>(cfg.max_height), bpp, &keep))
        return OF_ERR_OVERFLOW;
    const int wl = warm_level(p.levels);
    if (cfg.warm_start && cfg.robust != OF_ROBUST_PICK && cpu && wl >= first && !plane_bytes(p.dims[wl], &warm))
        return OF_ERR_OVERFLOW;

    if (!cpu) pyr = plane0 = plane1 = 0; // the CUDA path keeps its planes on the device
    const Algorithm* algo = find_algorithm(cfg.algorithm);
    if (!algo) return OF_ERR_INVALID_ARGUMENT;
    // OF_ROBUST_PICK (CPU paths only: core/robust.hpp): the best candidate's flow, its confidence
    // plane where the algorithm has one, and both judge images, level-0-sized.
    const bool pick_here = cfg.robust == OF_ROBUST_PICK && in.backend != OF_BACKEND_CUDA;
    const std::size_t pick = pick_here ? plane0 : 0;
    // The judge images also serve the residual confidence (core/confidence.hpp), under every
    // robust mode.
    const std::size_t judge = in.backend != OF_BACKEND_CUDA ? plane0 : 0;
    const std::size_t pick_conf = pick_here && algo->confidence_plane >= 0 ? plane0 : 0;
    // config.init OF_INIT_DIS (core/init_dis.hpp): the DIS pass's arena on every backend (on CUDA
    // its context, State and staging: its device planes are in the device arena); on the CPU paths
    // also its level-0 flow and three planes of the fused level (level 0's size: the texture rule
    // may stop the solve at level 0, which is then the level fused).
    const bool init_any = cfg.init == OF_INIT_DIS;
    const bool init_here = init_any && in.backend != OF_BACKEND_CUDA;
    const std::size_t init0 = init_here ? plane0 : 0;
    const std::size_t init_fused = init0;
    const int work = algo->work_planes(cfg);
    if (work < kScratchPlanes || work > kMaxWorkPlanes) return OF_ERR_INVALID_ARGUMENT;
    struct Row { int id; const char* name; std::size_t bytes; };
    const Row shared[] = {
        {kBufContext, "context", in.context_bytes},
        {kBufPyr0, "pyramid0", pyr},   {kBufPyr1, "pyramid1", pyr},
        {kBufU1, "u1", plane0},        {kBufU2, "u2", plane0},
        {kBufTmp, "tmp", plane0},
        {kBufPrevU1, "prev_u1", plane1}, {kBufPrevU2, "prev_u2", plane1},
        {kBufBandSums, "band_sums", bands},
        {kBufCudaState, "cuda_state", in.cuda_state_bytes},
        {kBufStaging, "staging", in.pinned_bytes},
        {kBufTable, "tuning_table", in.table_bytes},
        {kBufSplitFlow, "split_flow", split_flow},
        {kBufStreamFrame, "stream_frame", keep},
        {kBufWarmU1, "warm_u1", warm}, {kBufWarmU2, "warm_u2", warm},
        {kBufExposureHist, "exposure_hist", hist},
        {kBufPickU1, "pick_u1", pick},   {kBufPickU2, "pick_u2", pick},
        {kBufPickConf, "pick_conf", pick_conf},
        {kBufPickN0, "pick_n0", judge},  {kBufPickN1, "pick_n1", judge},
        {kBufInitArena, "init_arena", init_any ? in.init_host_bytes : 0},
        {kBufInitU1, "init_u1", init0},  {kBufInitU2, "init_u2", init0},
        {kBufInitD1, "init_d1", init_fused}, {kBufInitD2, "init_d2", init_fused},
        {kBufInitCost, "init_cost", init_fused},
    };
    static_assert(sizeof(shared) / sizeof(shared[0]) == kBufWork0, "one row per shared host buffer");
    Row rows[kHostBufCount];
    for (int i = 0; i < kBufWork0; ++i) rows[i] = shared[i];
    for (int i = 0; i < kMaxWorkPlanes; ++i)
        rows[kBufWork0 + i] = Row{kBufWork0 + i, i < work ? algo->work_plane_name(cfg, i) : "unused", i < work ? plane0 : 0};
    // The block start is aligned by the allocator or checked for a caller arena, so offsets
    // only need their own alignment.
    std::size_t off = 0;
    for (const Row& r : rows) {
        if (!align_up(off, kHostAlign, &off)) return OF_ERR_OVERFLOW;
        p.host[r.id] = BufferSpec{r.name, r.bytes, kHostAlign, off};
        if (off > kSizeMax - r.bytes) return OF_ERR_OVERFLOW;
        off += r.bytes;
    }
    if (!align_up(off, kHostAlign, &off)) return OF_ERR_OVERFLOW;
    p.host_bytes = off;
    p.stream_host_bytes = keep + 2 * warm;
    p.device_bytes = in.device_bytes;
    return OF_OK;
}

} // namespace oflow
