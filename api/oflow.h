/*
 * oflow.h - the only public header of liboflow: dense optical flow for embedded boards.
 *
 * Contract (stable C ABI):
 *  - C99; compiles alone with -std=c99 -pedantic and as C++.
 *  - Every struct the caller passes in begins with `uint32_t struct_size`, which must be set
 *    to sizeof(the struct) as the caller compiled it. Structs only grow at the end.
 *  - Enum values never change; new values are appended. Every enum is 32-bit; the library
 *    accepts any int in an enum field and answers an unknown value with a status.
 *  - No entry point throws, aborts or prints. Each returns an of_status; on failure it writes
 *    nothing to its outputs, leaves the context usable, and records a message that
 *    of_last_error() returns.
 *  - of_create() is the only call that allocates (unless the caller passes its own arenas:
 *    then the library allocates no memory at all). of_process() never allocates. Exception:
 *    with of_config.tuning_path the XML reader allocates while it reads the file (in
 *    of_create, of_query_memory and of_explain).
 *  - A context is used by one thread at a time; different contexts are independent.
 *
 * Typical use:
 *    of_config cfg;  of_config_init(&cfg, OF_ALGO_TVL1);
 *    cfg.max_width = 640; cfg.max_height = 480;
 *    of_context* ctx;  if (of_create(&cfg, &ctx) != OF_OK) { puts(of_last_error(NULL)); }
 *    for (;;) { ... of_process(ctx, &prev, &next, &flow) ... }
 *    of_destroy(ctx);
 */
#ifndef OFLOW_H
#define OFLOW_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define OF_API
#elif defined(__GNUC__)
#define OF_API __attribute__((visibility("default")))
#else
#define OF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Library version: major, minor, patch. of_version() returns OF_VERSION of the build. */
#define OF_VERSION_MAJOR 0
#define OF_VERSION_MINOR 1
#define OF_VERSION_PATCH 0
#define OF_VERSION ((OF_VERSION_MAJOR << 16) | (OF_VERSION_MINOR << 8) | OF_VERSION_PATCH)

/** Result of every call. Values are fixed forever. */
typedef enum of_status {
    OF_OK = 0,
    OF_ERR_NULL_POINTER = 1,        /**< a required pointer argument is NULL */
    OF_ERR_STRUCT_SIZE = 2,         /**< struct_size is not one this library knows */
    OF_ERR_INVALID_ARGUMENT = 3,    /**< a parameter is out of its documented range */
    OF_ERR_UNSUPPORTED = 4,         /**< valid request that this build does not implement */
    OF_ERR_BACKEND_UNAVAILABLE = 5, /**< the requested backend is not in this build or machine */
    OF_ERR_SIZE = 6,                /**< width/height zero, above the maximum, or mismatched */
    OF_ERR_STRIDE = 7,              /**< stride smaller than one row of the image */
    OF_ERR_FORMAT = 8,              /**< pixel format or memory kind differs from the config */
    OF_ERR_NONFINITE = 9,           /**< F32 input holds NaN, Inf or a magnitude above 1e6 */
    OF_ERR_ARENA = 10,              /**< caller arena too small or misaligned */
    OF_ERR_OVERFLOW = 11,           /**< a size computation would overflow */
    OF_ERR_OUT_OF_MEMORY = 12,      /**< of_create could not allocate its arena */
    OF_ERR_DEVICE = 13,             /**< a CUDA error; of_last_error carries its text */
    OF_ERR_INTERNAL = 14,           /**< a bug: an invariant of the library failed */
    OF_PENDING = 15,                /**< not an error: of_push_frame kept the frame and wrote no flow (the first
                                         frame of a stream, or one whose size differs from the last);
                                         of_last_error says which */
    OF_STATUS_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_status;

/** Flow algorithm. */
typedef enum of_algorithm {
    OF_ALGO_TVL1 = 1, /**< TV-L1 (Zach-Pock-Bischof duality scheme, IPOL variant) */
    OF_ALGO_HS = 2,   /**< Horn-Schunck (of_hs_params; reference, NEON and CUDA paths) */
    OF_ALGO_CLG = 3,  /**< combined local-global (Bruhn; of_hs_params; reference, NEON and CUDA paths) */
    OF_ALGO_LK = 4,   /**< dense pyramidal Lucas-Kanade (of_lk_params; reference, NEON and CUDA paths); the validity
                           output (of_flow.valid) says where it has no answer */
    /* Appended with Dense Inverse Search. */
    OF_ALGO_DIS = 5,  /**< Dense Inverse Search (Kroeger et al., ECCV 2016; of_dis_params, presets by of_dis_preset):
                           patch-wise inverse search over the pyramid, densification, a short variational
                           refinement; reference, NEON (F32) and CUDA (F32, F16 storage) paths. Large motion
                           within a real-time budget */
    OF_ALGO_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_algorithm;

/** Where the work runs. The environment variable OFLOW_FORCE_BACKEND overrides the config's
 *  choice: see of_config.backend. */
typedef enum of_backend {
    OF_BACKEND_AUTO = 0,      /**< the board table decides by frame area: CUDA at or above its crossover when CUDA is built and a device is present, else the CPU path (NEON when built and usable, unless the table states the reference path faster: then, and without NEON, reference). See of_config.platform */
    OF_BACKEND_REFERENCE = 1, /**< portable C++ reference path; always available */
    OF_BACKEND_NEON = 2,      /**< the NEON kernels: aarch64 builds, and x86-64 builds through SIMDe; F16 only with FP16 vector arithmetic (Xavier, Orin) */
    OF_BACKEND_CUDA = 3,      /**< CUDA path */
    OF_BACKEND_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_backend;

/** Arithmetic and storage precision of the solver. */
typedef enum of_precision {
    OF_PRECISION_AUTO = 0, /**< the board table's choice for the algorithm (generic: F32; Jetson tables: F16) */
    OF_PRECISION_F32 = 1,
    OF_PRECISION_F16 = 2, /**< F16 storage; paths without F16 run F32 and of_get_info says so */
    OF_PRECISION_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_precision;

/** Pixel format of input frames (single channel). Intensities are used on a 0..255 scale:
 *  U8 as is, U16 divided by 257, F32 as given (expected 0..255; every pixel finite and of
 *  magnitude <= 1e6, else of_process answers OF_ERR_NONFINITE). */
typedef enum of_pixel_format {
    OF_PIXEL_U8 = 1,
    OF_PIXEL_U16 = 2,
    OF_PIXEL_F32 = 3,
    OF_PIXEL_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_pixel_format;

/** Where a buffer lives. */
typedef enum of_memory_kind {
    OF_MEMORY_HOST = 0,        /**< ordinary host memory */
    OF_MEMORY_CUDA_DEVICE = 1, /**< cudaMalloc'd device memory (CUDA backend only) */
    OF_MEMORY_CUDA_MAPPED = 2, /**< host memory mapped into the device (zero-copy) */
    OF_MEMORY_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_memory_kind;

/** Layout of the output flow. */
typedef enum of_flow_layout {
    OF_FLOW_PLANAR = 0,     /**< u in one plane, v in another (of_flow.u, of_flow.v) */
    OF_FLOW_INTERLEAVED = 1, /**< (u,v) float pairs in one plane at of_flow.u; v must be NULL */
    OF_FLOW_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_flow_layout;

/** Element format of the output flow planes (of_flow.format). Every format holds the same flow
 *  in pixels; the compact ones are rounded from the F32 flow the context computed, on the path
 *  that computed it (a CUDA context converts on the device, before any download). */
typedef enum of_flow_format {
    OF_FLOW_FORMAT_F32 = 0,   /**< float, px (default: zero-initialised) */
    OF_FLOW_FORMAT_F16 = 1,   /**< IEEE half (binary16), px, round to nearest even, clamped to +-65504 (never
                                   Inf); error <= 2^-11 relative (2^-25 absolute below 2^-14) */
    OF_FLOW_FORMAT_S10_5 = 2, /**< int16_t signed fixed point, 1/32 px: round-half-even(px * 32) clamped to
                                   [-32768, 32767], i.e. [-1024, 1023.96875] px; error <= 1/64 px inside that
                                   range. The format of NVIDIA's hardware flow engines (VPI on Xavier/Orin) */
    OF_FLOW_FORMAT_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_flow_format;

/** Kernel variant of a GPU path, after the kernels of T. Romera, "Adequation algorithme
 *  architecture pour flot optique sur GPU embarque", PhD thesis, Sorbonne Universite, 2023,
 *  section 4.6.1. CPU paths ignore it. HS / CLG: GLOBAL is one launch per Jacobi iteration (per
 *  SOR half-sweep), FUSED one launch per iteration (Jacobi: the MULTI_ITER kernel at depth 1;
 *  SOR: red and black in one launch), MULTI_ITER fused_depth Jacobi iterations per launch (SOR
 *  asked for MULTI_ITER: OF_ERR_UNSUPPORTED; from a table row it runs FUSED). */
typedef enum of_variant {
    OF_VARIANT_AUTO = 0,       /**< the board table's choice for the size */
    OF_VARIANT_GLOBAL = 1,     /**< two kernels per iteration, global memory (the baseline) */
    OF_VARIANT_FUSED = 2,      /**< one kernel per iteration, shared-memory tile + halo */
    OF_VARIANT_MULTI_ITER = 3, /**< several iterations per launch in shared memory */
    OF_VARIANT_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_variant;

/** Linear solver for HS/CLG: both reach the same fixed point (one discretisation). */
typedef enum of_solver {
    OF_SOLVER_JACOBI = 0,        /**< pointwise-coupled Jacobi: a 2x2 solve per pixel per iteration */
    OF_SOLVER_RED_BLACK_SOR = 1, /**< red-black SOR over a split (red / black half-width) layout, omega */
    OF_SOLVER_PRIMAL_DUAL = 2,   /**< TV-L1's primal-dual scheme: reported by of_info, not a config.hs choice */
    OF_SOLVER_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_solver;

/** Illumination-robust preprocessing of both frames, before the presmoothing and the pyramid
 *  (every algorithm). docs/accuracy.md has the measurements behind the choice and the default. */
typedef enum of_robust {
    OF_ROBUST_NONE = 0,       /**< the frames as given: brightness constancy holds only if the exposure does */
    OF_ROBUST_LOCAL_NORM = 1, /**< local contrast normalisation: 128 + 20 (I - mean) / (sd + 4), mean and sd
                                   Gaussian-weighted over robust_sigma. Invariant to a gain and an offset
                                   between the frames where the local contrast is well above 4 grey levels.
                                   Applied at full resolution before the pyramid: a high-pass step, so the
                                   coarse levels lose their signal and large displacements are missed */
    /* Appended with the large-motion work (docs/accuracy.md section 13). */
    OF_ROBUST_RANGE_MATCH = 2, /**< global exposure match alone: frame 1 mapped onto frame 0's range,
                                   (I1 - offset) / gain, gain and offset from the two frames' quartiles
                                   (and both clamped to the range the other frame still shows) */
    OF_ROBUST_LEVEL_NORM = 3,  /**< the pyramid is built from the range-matched frames, then every level is
                                   normalised at its own scale as LOCAL_NORM (robust_sigma in that level's
                                   pixels): gain/offset invariant, and every level keeps its signal.
                                   OF_ALGO_DIS: levels 0-2 (never the two coarsest) are instead resampled
                                   from one fine level normalised as LOCAL_NORM (robust_sigma frame pixels;
                                   level 0, or the level above the finest DIS solves): they keep the
                                   fine detail its patches match (docs/accuracy.md, "Dense Inverse Search") */
    OF_ROBUST_PICK = 4,        /**< opt-in (the default until 2026-12; offline work only: the default's one
                                   solve matches or beats it on every measured set): the pair solved under each candidate and the flow kept
                                   whose warp best matches the two frames normalised as LOCAL_NORM (mean
                                   |N0(x) - N1(x + u)|, NONE's divided by 1.05 for HS and CLG; a pixel whose
                                   x + u leaves the frame counts 10 grey levels; ties keep the earlier).
                                   Candidates: HS, CLG, LK three, LOCAL_NORM, NONE and LEVEL_NORM; TV-L1
                                   four, NONE, LEVEL_NORM, RANGE_MATCH and SHADE_NORM (the last two with
                                   median_size at most 3). LEVEL_NORM runs with the texture rule off
                                   (min_texture 0). of_info.last_pick names the kept one. Three (four)
                                   solves: about 3x (4x) the time, and time_budget_ms is split between
                                   them; warm_start is not applied. Memory: CPU paths 2 more frame-sized
                                   host planes (3 for LK) beside the judge images every mode has (they serve
                                   of_flow.valid); CUDA 4 more frame-sized F32 device planes and a
                                   float2 flow plane (and an F32 plane for LK), all the solves and the
                                   choice in one graph without a host wait, and no frame split between
                                   CPU and GPU */
    /* Appended with the shading work (docs/accuracy.md section 13). */
    OF_ROBUST_SHADE_NORM = 5,  /**< each frame divided by its local mean over a wide window (three box
                                   passes, variance (0.2 x the frame's shorter side)^2), then the exposure
                                   match as RANGE_MATCH: a vignette or lighting that differs smoothly
                                   between the frames divides out, and texture at every finer scale
                                   keeps its contrast */
    /* Appended with the one-solve work (docs/accuracy.md). */
    OF_ROBUST_CENSUS = 6,      /**< the default of TV-L1, HS, CLG and LK (with config.init OF_INIT_DIS), on
                                   the CPU and CUDA paths (DIS:
                                   OF_ERR_UNSUPPORTED; a CUDA frame is never split with the CPU): a data
                                   term robust by construction, one solve. Every pyramid level described
                                   by its soft census, 8 channels per pixel, d / sqrt(eta^2 + d^2) of the
                                   differences d to the 3x3 neighbours, eta following each frame's contrast
                                   and noise, after the exposure match (as RANGE_MATCH); levels >= 1
                                   normalised at their own scale first (as LEVEL_NORM). TV-L1: the
                                   channels' linearised tensor is split per warp into its two orthogonal
                                   eigen-channels, whose L1 terms its threshold takes in one closed-form
                                   step each; HS and CLG: the channels' summed tensor replaces the
                                   intensity's (HS then solves with the coupled updates); LK: the same
                                   tensor, rebuilt at every Newton step at the current flow, summed over
                                   its window (lk.min_eigen applies to it unchanged). The iterations
                                   run in F32 (precision F16 runs F32 here; on CUDA, TV-L1 and LK run the
                                   GLOBAL variant whatever is asked, HS and CLG's Jacobi GLOBAL where the
                                   variant is AUTO: of_info says so). With automatic levels the pyramid goes down
                                   to sides of 8 px (16 in the other modes). docs/accuracy.md has where it
                                   wins and loses */
    OF_ROBUST_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_robust;

/** config.init: where the coarse-to-fine solve takes its coarse flow from (docs/accuracy.md
 *  section 23). */
typedef enum of_init {
    OF_INIT_NONE = 0,          /**< coarse to fine alone (DIS's default: DIS is its own search) */
    OF_INIT_DIS = 1,           /**< the default of TV-L1, HS, CLG and LK, on every backend (algorithm DIS:
                                   OF_ERR_UNSUPPORTED). Before the solve, Dense Inverse Search (preset MEDIUM,
                                   its own preprocessing, a pyramid down to sides of 8 px) runs on the same
                                   pair: on the CPU paths on the context's threads, inside the context's
                                   host arena; on the CUDA path on the device, in the context's device arena
                                   and on its stream (no wait, no allocation added; a frame with it is never
                                   split with the CPU by level). At
                                   the start of every level of the solve's pyramid from the coarsest down
                                   to level 1 (level 0 for a one-level pyramid; the coarsest level solved
                                   where that is finer), DIS's flow, area-averaged to the level, replaces
                                   the coarse-to-fine flow at the pixels where it explains the level
                                   better: per pixel, the lower sum over a 7x7 window of 1 - ZNCC of the
                                   3x3 patch of frame 0 and frame 1 read at the candidate flow (a pixel
                                   where either flow leaves the level counts as a tie). Level 0 then
                                   solves as usual. It repairs what
                                   the coarse levels lose (fine texture that blurs flat, large motion);
                                   it costs one DIS pass per pair and DIS's own arena: on the CPU paths its
                                   host arena plus five frame-sized planes, on CUDA its device arena plus
                                   one frame-sized flow plane in device memory and its state and staging
                                   in host memory (of_query_memory counts them). The robust
                                   mode applies to the solve, not to the DIS pass; time_budget_ms does not
                                   count the pass */
    OF_INIT_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_init;

/** TV-L1 parameters of the scheme of Zach, Pock, Bischof ("A duality based approach for realtime
 *  TV-L1 optical flow", 2007); the defaults are those of the IPOL implementation (Sanchez Perez,
 *  Meinhardt-Llopis, Facciolo, "TV-L1 optical flow estimation", 2013). */
typedef struct of_tvl1_params {
    float tau;    /**< dual step; default 0.25; [1e-4, 0.25] (convergence needs <= 0.25) */
    float lambda; /**< data attachment weight; default 0.15; [1e-4, 1000] */
    float theta;  /**< coupling between u and v; default 0.3; [1e-4, 10] */
} of_tvl1_params;

/** Horn-Schunck / CLG parameters. Both algorithms minimise, per pyramid level and warp, the
 *  energy of the flow increment w = (du, dv): w^T J w + alpha^2 (|grad du|^2 + |grad dv|^2), J the
 *  structure tensor of the 2x2x2 cube derivatives (Horn and Schunck 1981), smoothed by a Gaussian
 *  of sigma rho for CLG (Bruhn, Weickert, Schnorr 2005); rho = 0 is Horn-Schunck. The Laplacian
 *  is Horn-Schunck's 9-point local mean. Every path: reference, NEON (F32, F16 means on ARMv8.2)
 *  and CUDA (F32; F16 stores the increment and the per-pixel coefficients as half2). */
typedef struct of_hs_params {
    float alpha;      /**< smoothness weight (squared in the energy; Bruhn's alpha is our alpha^2), on the
                           0..255 intensity scale after the preprocessing; default 15 (the lowest mean EPE
                           of 4..30 on the synthetic cases, HS and CLG: docs/accuracy.md); [0.01, 1000] */
    float rho;        /**< CLG tensor smoothing sigma in px; default 0 for HS (must stay 0 there), 2 for CLG;
                           [0, 10] */
    of_solver solver; /**< default OF_SOLVER_JACOBI (pointwise-coupled); OF_SOLVER_RED_BLACK_SOR */
    float omega;      /**< SOR over-relaxation; default 1.4; (0, 1.5] (same-colour diagonal neighbours are
                           coupled Jacobi-style: 1.55-1.6 diverged in measurements, docs/accuracy.md) */
} of_hs_params;

/** Lucas-Kanade parameters (dense pyramidal LK with iterative refinement, Bouguet): per pixel the
 *  least-squares flow over a window x window neighbourhood; config.iterations Newton steps per
 *  level, each stopping where the step is below config.epsilon px; config.warps must be 1. */
typedef struct of_lk_params {
    uint32_t window;  /**< odd window side 3..33; default 11 (docs/accuracy.md, Lucas-Kanade) */
    float min_eigen;  /**< a window is valid when the smaller eigenvalue of its gradient tensor (intensity
                           units of the 0..255 scale, per px) divided by window^2 is at least this, at every
                           level (OF_ROBUST_CENSUS: of the census channels' tensor, at their grey-level
                           scale, on each level's first step); default 1; finite, >= 0 (0: every window valid) */
} of_lk_params;

/** Dense Inverse Search parameters (Kroeger, Timofte, Dai, Van Gool, "Fast Optical Flow using
 *  Dense Inverse Search", ECCV 2016). Per pyramid level from the coarsest down to finest_level:
 *  patches of patch_size x patch_size pixels on a grid of step patch_stride (the last row and
 *  column of the grid moved in to end at the frame's edge, so that every pixel is covered), each
 *  patch's flow found by iterations inverse-compositional Gauss-Newton steps on the patch's
 *  mean-normalised squared error (offset invariant), started at the coarser level's flow, with
 *  one exchange of flows between neighbouring patches half-way; every pixel's flow the average of
 *  its patches' flows weighted by 1 / max(1, |error|) at that pixel; then refine_iterations
 *  fixed-point iterations of the variational refinement (brightness and gradient constancy,
 *  smoothness) solved by red-black SOR. Levels finer than finest_level take the flow upsampled.
 *  docs/accuracy.md ("Dense Inverse Search") has the method, the presets and the measurements. */
typedef struct of_dis_params {
    uint32_t patch_size;        /**< patch side in px; default 8 (MEDIUM); 4..32 */
    uint32_t patch_stride;      /**< grid step in px; default 3 (MEDIUM); 1..patch_size */
    uint32_t iterations;        /**< Gauss-Newton steps per patch and level; default 25 (MEDIUM); 1..1000 */
    uint32_t finest_level;      /**< finest pyramid level solved (0 = full size); default 1 (MEDIUM); 0..15 */
    uint32_t refine_iterations; /**< fixed-point iterations of the refinement per level (0: none); default 5; 0..100 */
    float refine_alpha;         /**< smoothness weight of the refinement (quadratic smoothness: OpenCV's 20 weighs a
                                     robust one); default 300; [0.01, 1000] */
    float refine_delta;         /**< brightness constancy weight; default 5; [0, 1000] */
    float refine_gamma;         /**< gradient constancy weight; default 10; [0, 1000] */
} of_dis_params;

/** The presets of OpenCV's DISOpticalFlow, by the same names and meaning (of_dis_preset). */
typedef enum of_dis_preset_id {
    /* Each preset also sets the refinement weights to their defaults (alpha 300, delta 5, gamma 10). */
    OF_DIS_ULTRAFAST = 0, /**< finest level 2, patch 8, stride 4, 12 iterations, no refinement */
    OF_DIS_FAST = 1,      /**< finest level 2, patch 8, stride 4, 16 iterations, 5 refinement iterations */
    OF_DIS_MEDIUM = 2,    /**< finest level 1, patch 8, stride 3, 25 iterations, 5 refinement iterations (default) */
    OF_DIS_PRESET_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_dis_preset_id;

/** Everything of_create needs. Fill with of_config_init, then change fields. */
typedef struct of_config {
    uint32_t struct_size;       /**< sizeof(of_config) */
    of_algorithm algorithm;     /**< set by of_config_init */
    uint32_t max_width;         /**< largest frame width; default 640; 1..32768 */
    uint32_t max_height;        /**< largest frame height; default 480; 1..32768 */
    of_pixel_format format;     /**< format of every input frame; default OF_PIXEL_U8 */
    uint32_t levels;            /**< pyramid levels; default 0 = automatic (coarsest side >= 16 px; OF_ROBUST_CENSUS: 8 px); max 16 */
    float scale_factor;         /**< pyramid downscale per level; default 0.5; [0.01, 0.99] */
    uint32_t warps;             /**< re-linearisations per level; default 5; 1..100 (LK, DIS: must be 1, their default) */
    uint32_t iterations;        /**< inner iterations per warp; default 300; 1..100000 (LK: Newton steps per level;
                                     default 10; DIS: not used, its steps are dis.iterations) */
    float epsilon;              /**< stop a warp when mean |du|^2 <= epsilon^2; default 0.01; 0 = never; finite,
                                     >= 0 (squared in double: FLT_MAX stops every warp after one iteration) */
    float presmooth_sigma;      /**< Gaussian on both frames before the pyramid; default 0.8; 0 = off; [0, 8] */
    of_backend backend;         /**< default OF_BACKEND_AUTO. Overridden by the environment variable
                                     OFLOW_FORCE_BACKEND=reference|neon|cuda|auto (unset or empty: no
                                     override), read by of_create, of_query_memory and of_explain (which agree),
                                     not per frame. An unknown value is OF_ERR_INVALID_ARGUMENT, a forced
                                     backend this build or machine lacks OF_ERR_BACKEND_UNAVAILABLE; both
                                     name the variable in of_last_error(NULL); never a silent fallback. */
    of_precision precision;     /**< default OF_PRECISION_AUTO */
    uint32_t threads;           /**< CPU worker threads, created at of_create; default 1; 1..64. The CUDA path
                                     uses them for the copies of host frames and flow through its staging */
    float time_budget_ms;       /**< per-frame budget; default 0 = none (config.iterations holds). > 0: of_create
                                     sets the iterations per warp of every level to the most that the board
                                     table's time model (platform/tables/README.md) fits into a maximum-size
                                     frame, 1..100000, replacing iterations; of_info.iterations says how many.
                                     warps is then a minimum: where the budget buys more than
                                     OF_BUDGET_ITERATIONS_PER_WARP iterations per warp it buys warps instead
                                     (re-linearising; one linearisation stops gaining after some 20-30
                                     iterations: docs/time-budget.md), up to 100 (LK: never, it has no warps;
                                     DIS: it buys dis.iterations, the steps per patch, 1..1000, and no warp);
                                     of_info.warps says how many.
                                     Any finite budget is taken (the model runs in double; a huge one buys
                                     the most: 100000 iterations, 100 warps). A budget that buys no
                                     iteration, a negative or non-finite one:
                                     OF_ERR_INVALID_ARGUMENT (the message says what one iteration costs); a
                                     table without a row for the request: OF_ERR_UNSUPPORTED naming the file.
                                     The model is the table's, not a measurement of this machine; epsilon may
                                     still stop a warp early */
    of_tvl1_params tvl1;        /**< TV-L1 parameters */
    of_hs_params hs;            /**< HS/CLG parameters */
    of_lk_params lk;            /**< LK parameters */
    void* host_arena;           /**< caller's host block, 64-byte aligned; default NULL = library allocates */
    size_t host_arena_size;     /**< its size in bytes; >= of_memory.host_bytes */
    void* device_arena;         /**< caller's device block, 256-byte aligned; default NULL */
    size_t device_arena_size;   /**< its size in bytes; >= of_memory.device_bytes */
    void* cuda_stream;          /**< cudaStream_t to run on; default NULL = the context's own */
    const char* platform;       /**< board table: "nano", "tx2", "xavier", "orin", "generic" (or the name of
                                     the table tuning_path loads); default NULL (or "" or "auto") = detect:
                                     the Jetson board from the device tree, else a table of the CUDA device's
                                     compute capability, else "generic". The environment variable
                                     OFLOW_PLATFORM (non-empty) overrides it. An unknown name is
                                     OF_ERR_INVALID_ARGUMENT listing the known ones. Not retained after create */
    of_variant variant;         /**< GPU kernel variant; default OF_VARIANT_AUTO */
    uint32_t block_width;       /**< GPU block width in threads; default 0 = the variant's default */
    uint32_t block_height;      /**< GPU block height; default 0 = the variant's default */
    uint32_t fused_depth;       /**< iterations per launch (MULTI_ITER); default 0 = variant default; <= 16 */
    const char* tuning_path;    /**< a tuning table file (platform/tables/README.md) to add to the built-in
                                     ones, read at of_create / of_query_memory / of_explain; default NULL.
                                     Its table joins the built-in ones, ahead of them: chosen when
                                     config.platform / OFLOW_PLATFORM names it, or by detection (its name is
                                     the detected board's, or its compute capability the CUDA device's); a
                                     built-in table of the same name is shadowed. Needs a library built
                                     with OF_WITH_TINYXML2 (else OF_ERR_UNSUPPORTED); a missing, broken or
                                     invalid file is OF_ERR_INVALID_ARGUMENT naming the file, line and field.
                                     The table is kept in the context's host arena (of_query_memory counts
                                     it); the path is not retained */
    /* Appended with the exposure work (docs/accuracy.md). */
    of_robust robust;           /**< illumination-robust preprocessing; default OF_ROBUST_CENSUS (DIS: OF_ROBUST_LEVEL_NORM
                                     with its fine levels from the frame's normalisation, one solve a pair:
                                     docs/accuracy.md, "Dense Inverse Search") */
    float robust_sigma;         /**< its window (Gaussian sigma, px at full size); default 3; [0.5, 10] */
    uint32_t median_size;       /**< median filter of the flow after every warp: 0 (off), 3 or 5 (default; LK, DIS: 0) */
    float min_texture;          /**< automatic levels only: the coarsest level used is the coarsest whose
                                     frame-0 image, and every finer level's, has a mean squared gradient
                                     (central differences, grey levels^2 per px^2, after the preprocessing)
                                     of at least this; coarser levels are not solved (flow starts at zero
                                     below them). Decided per frame; default 1 (DIS: 0, its patches without
                                     texture keep the coarser flow instead); 0 = size rule only; [0, 1e6].
                                     Robust pick's LEVEL_NORM solve runs with 0 (OF_ROBUST_PICK); under
                                     OF_ROBUST_CENSUS the rule is off (its coarse levels are normalised) */
    /* Appended with the multi-level iteration schedule. */
    float iteration_growth;     /**< more inner iterations on coarser levels, every algorithm and path: level l
                                     (0 = finest) runs min(round(iterations * (1 + iteration_growth * l)),
                                     100000) per warp. Default 0 = the same count on every level; [0, 16].
                                     Seznec et al.'s CLG schedule 60/120/180/240 (fine to coarse) is
                                     iterations 60, growth 1. With time_budget_ms the budget buys the finest
                                     level's count and the others follow; of_info.level_iterations lists them */
    /* Appended with camera streams (of_push_frame). */
    uint32_t warm_start;        /**< streams only (of_push_frame; of_process ignores it): 1 = start each pair's solve
                                     at the warm level (level 1 of the pyramid, level 0 for a one-level pyramid)
                                     from the previous pair's flow there, where that flow explains the new pair
                                     better than the cold start does (mean absolute residual |I1(x+u) - I0(x)|
                                     after the preprocessing): the check that keeps a scene cut or a new motion
                                     from inheriting a wrong flow. The coarser levels run as usual. Costs one
                                     flow plane of the warm level (of_info.stream_host_bytes /
                                     stream_device_bytes). Default 0 (off: docs/performance.md has the
                                     measurements behind the default); 0 or 1. With config.init OF_INIT_DIS
                                     (the default) the check compares with the level's start after the DIS
                                     pass's fusion, which explained every pair better on the suite's
                                     camera-path and moving-object streams (tests/stream.cpp: taken on 0 of 8
                                     pairs each); of_info.last_warm says */
    /* Appended with the confidence output. */
    float min_confidence;       /**< of_flow.valid as OF_VALID_MASK_U8: a pixel is valid (255) when its confidence
                                     (OF_VALID_CONFIDENCE_F32) is at least this; default 0.5 (docs/accuracy.md,
                                     "Confidence"); [0, 1] (0: every pixel valid) */
    /* Appended with Dense Inverse Search. */
    of_dis_params dis;          /**< DIS parameters (of_dis_preset sets them; of_config_init: MEDIUM) */
    /* Appended with the DIS-initialised solve. */
    of_init init;               /**< the coarse flow's source (of_init); default OF_INIT_DIS (DIS: OF_INIT_NONE) */
} of_config;

/** Memory a configuration needs (of_query_memory). */
typedef struct of_memory {
    uint32_t struct_size;     /**< sizeof(of_memory) */
    size_t host_bytes;        /**< host arena size, the context itself included */
    size_t device_bytes;      /**< device arena size (0 for CPU backends) */
    size_t host_alignment;    /**< required alignment of a caller host arena (64) */
    size_t device_alignment;  /**< required alignment of a caller device arena (256) */
} of_memory;

/** One input frame (single channel). */
typedef struct of_image {
    uint32_t struct_size;   /**< sizeof(of_image) */
    of_pixel_format format; /**< must equal of_config.format */
    of_memory_kind memory;  /**< HOST with every backend; CUDA_DEVICE / CUDA_MAPPED with CUDA only */
    uint32_t width;         /**< 1..of_config.max_width */
    uint32_t height;        /**< 1..of_config.max_height */
    size_t stride;          /**< bytes from one row to the next; >= width * bytes per pixel, a multiple of it */
    const void* data;       /**< first pixel; aligned to its pixel size */
} of_image;

/** What of_flow.valid receives: where the flow can be trusted, for every algorithm and path.
 *  The confidence of a pixel is a value in [0, 1], higher = more trustworthy, 0 = no answer
 *  (a non-finite result). The mask says 255 where the confidence is at least
 *  config.min_confidence, else 0. docs/accuracy.md ("Confidence") has the measurements.
 *   - Every algorithm: the residual confidence of the final flow. Both frames are normalised as
 *     OF_ROBUST_LOCAL_NORM (so that a change of exposure does not read as error) into N0, N1;
 *     e = B(|N0(x) - N1(x + u)|) + 5 / (1 + B(|grad N0|^2)), B the mean over the 5x5 window
 *     (its pixels inside the frame), N1 read bilinearly, a target x + u outside the frame
 *     counting 10 grey levels; confidence = 2^(-e / 5). The first term marks occlusions,
 *     content that left the frame and wrong matches, the second flat regions, where a match
 *     says nothing (an error of 5 grey levels of the normalised images: 0.5).
 *   - Lucas-Kanade: the smaller of that and its own rule's confidence, from the smaller eigenvalue
 *     lambda of its window's gradient tensor divided by the window's area (at the finest level):
 *     lambda / (lambda + config.lk.min_eigen) (1 when min_eigen is 0), 0.5 where lambda =
 *     min_eigen: at the default threshold a pixel below LK's own rule is invalid. That rule decides
 *     LK's flow: a pixel below it keeps the flow it started the finest level with (the coarser
 *     levels' estimate, zero when no level was valid there), whatever min_confidence says.
 *  Cost: computed only when of_flow.valid is asked for (one pass over the frame on top of the
 *  solve: docs/performance.md); under a robust mode other than OF_ROBUST_PICK, whose judge
 *  images it reuses, both frames are normalised once more. Memory: the CPU paths plan the two
 *  judge images (frame-sized F32 host planes) under every robust mode; the CUDA path works in
 *  device planes that are free after the solve and adds a pinned frame-sized F32 plane for host
 *  output. */
typedef enum of_valid_format {
    OF_VALID_NONE = 0,           /**< no validity plane */
    OF_VALID_MASK_U8 = 1,        /**< uint8_t per pixel: 255 valid (confidence >= config.min_confidence), 0 invalid */
    OF_VALID_CONFIDENCE_F32 = 2, /**< float per pixel: the confidence, in [0, 1] */
    OF_VALID_MAX_ENUM = 0x7FFFFFFF /**< not a value: keeps the enum 32-bit */
} of_valid_format;

/** Output flow in pixels, frame1(x + u, y + v) ~ frame0(x, y), as F32 (default), F16 or S10.5
 *  elements (of_flow.format); and optionally its validity. */
typedef struct of_flow {
    uint32_t struct_size;  /**< sizeof(of_flow) */
    of_flow_layout layout; /**< planar or interleaved */
    of_memory_kind memory; /**< HOST with every backend; CUDA_DEVICE / CUDA_MAPPED with CUDA only */
    uint32_t width;        /**< must equal the frames' width */
    uint32_t height;       /**< must equal the frames' height */
    size_t stride;         /**< bytes between rows of a plane; >= width*E (planar), width*2*E (interleaved), a
                                multiple of E, E the element size of `format` (F32: 4; F16, S10.5: 2) */
    float* u;              /**< u plane, or the interleaved (u,v) plane; aligned to E. With a 16-bit format it
                                points at uint16_t (F16 bits) or int16_t (S10.5) elements: the caller casts */
    float* v;              /**< v plane (aligned to E, same element type as u); NULL when interleaved */
    /* Appended (0.2): the validity plane, in the same memory kind as u and v. */
    of_valid_format valid_format; /**< OF_VALID_NONE (default, zero-initialised): valid must be NULL */
    size_t valid_stride;   /**< bytes between its rows; >= width (mask) or width*4 (confidence, a multiple of 4) */
    void* valid;           /**< the plane, or NULL: not wanted (the flow is the same either way) */
    /* Appended with the compact flow formats. */
    of_flow_format format; /**< element format of u and v; OF_FLOW_FORMAT_F32 (default, zero-initialised). An
                                unknown value is OF_ERR_FORMAT. The validity plane does not depend on it */
} of_flow;

/** Most pyramid levels: the length of the per-level arrays of of_info. */
#define OF_MAX_LEVELS 16
/** With time_budget_ms: the most inner iterations per warp the budget buys before it buys a warp. */
#define OF_BUDGET_ITERATIONS_PER_WARP 25

/** What a context is and what its last frame did (of_get_info), or what of_create would choose
 *  (of_explain). */
typedef struct of_info {
    uint32_t struct_size;    /**< sizeof(of_info) */
    of_algorithm algorithm;
    of_backend backend;      /**< backend chosen (never AUTO) */
    of_precision precision;  /**< precision actually used (never AUTO) */
    uint32_t levels;         /**< pyramid levels at max size */
    uint32_t threads;        /**< CPU threads */
    size_t host_bytes;       /**< host arena size */
    size_t device_bytes;     /**< device arena size */
    uint32_t last_width;     /**< size of the last processed frame; 0 before the first */
    uint32_t last_height;
    uint32_t last_levels;    /**< levels used for the last frame */
    uint64_t last_iterations;/**< inner iterations run for the last frame, all levels and warps */
    char variant[32];        /**< kernel variant: "ref", "neon", "neon_f16", or the CUDA variant */
    char reason[160];        /**< why this backend/precision was chosen (e.g. OFLOW_FORCE_BACKEND, or F16 requested but run as F32) */
    /* Appended with the board tables: the table and what it chose. */
    char board[32];          /**< tuning table used: "xavier", "generic", or a loaded table's name */
    char board_match[24];    /**< how it was chosen: "override" (config.platform / OFLOW_PLATFORM), "board"
                                  (detected Jetson), "compute capability" (CUDA device), "generic" */
    char board_reason[160];  /**< the evidence, e.g. "table xavier: board detected (device tree compatible nvidia,tegra194)" */
    uint32_t iterations;     /**< inner iterations per warp at the finest level: config.iterations, or what
                                  time_budget_ms bought (coarser levels: level_iterations; DIS: its steps
                                  per patch, config.dis.iterations or the budget's) */
    uint32_t warps;          /**< warps per level: config.warps, or more where time_budget_ms bought them */
    double predicted_ms;     /**< the table's time model for one maximum-size frame at that count on the chosen
                                  paths (README of the tables); 0 when the table has no row for the request */
    uint32_t block_width;    /**< CUDA launch shape of the inner iterations at level 0: block threads ... */
    uint32_t block_height;   /**< ... (coarse levels may use half the height: cuda/) */
    uint32_t rows_per_thread;/**< MULTI_ITER rows per thread (else 1) */
    uint32_t fused_depth;    /**< MULTI_ITER iterations per launch (else 1); all four 0 on CPU backends */
    uint32_t level_width[OF_MAX_LEVELS];  /**< level sizes at the maximum frame size; `levels` entries, then 0 */
    uint32_t level_height[OF_MAX_LEVELS];
    of_backend level_wanted[OF_MAX_LEVELS];  /**< per level, the path the table wants: CUDA for its GPU path, NEON
                                                  or REFERENCE (this build's CPU path) for its CPU path; AUTO when
                                                  the table has no row for the request (explicit backends only) */
    of_backend level_backend[OF_MAX_LEVELS]; /**< per level, the backend that runs it. With backend AUTO on CUDA the
                                                  coarse levels the table wants on the CPU run there (one download of
                                                  their pyramids, one wait, one flow upload per frame); explicit
                                                  backends run every level */
    uint32_t level_iterations[OF_MAX_LEVELS];/**< inner iterations per warp at each level (the most: epsilon may
                                                  stop a warp sooner), config.iteration_growth's schedule */
    /* Appended with the exposure work. */
    of_robust robust;        /**< the preprocessing that runs (config.robust) */
    float robust_sigma;
    uint32_t median_size;    /**< median filter between warps (0 = off) */
    float min_texture;       /**< config.min_texture (0 with explicit levels or OF_ROBUST_CENSUS: the rule is off) */
    uint32_t last_coarsest;  /**< coarsest level solved for the last frame (min_texture may stop above the
                                  size rule's last level); on CUDA the levels above it run and are discarded */
    /* Appended with Horn-Schunck / CLG. */
    of_solver solver;        /**< the inner solver: OF_SOLVER_PRIMAL_DUAL for TV-L1, config.hs.solver for HS/CLG
                                  (LK has no value of its own and reports OF_SOLVER_PRIMAL_DUAL; its Newton steps
                                  are the iterations) */
    float omega;             /**< SOR over-relaxation that runs (0 unless OF_SOLVER_RED_BLACK_SOR) */
    float alpha;             /**< HS/CLG smoothness weight that runs (0 for TV-L1) */
    float rho;               /**< CLG tensor smoothing that runs (0 for HS and TV-L1) */
    /* Appended with the multi-level iteration schedule. */
    float iteration_growth;  /**< config.iteration_growth: level_iterations[l] = iterations * (1 + growth * l) */
    /* Appended with camera streams. */
    uint32_t warm_start;     /**< config.warm_start */
    size_t stream_host_bytes;   /**< bytes of host_bytes that hold a stream's previous frame and warm flow */
    size_t stream_device_bytes; /**< bytes of device_bytes that do (the uploaded-frame slot the previous frame
                                     stays in, and the warm flow) */
    uint64_t stream_frames;  /**< frames pushed since of_create / of_reset (0: no stream; of_process ends one) */
    uint32_t last_warm;      /**< 1 when the last pair started from the previous pair's flow (warm start taken),
                                  0 when it started cold (warm start off, the first pair, or the check refused) */
    /* Appended with robust pick. */
    of_robust last_pick;     /**< robust OF_ROBUST_PICK: the candidate whose flow the last frame kept (LOCAL_NORM,
                                  NONE or LEVEL_NORM; TV-L1: NONE, LEVEL_NORM or RANGE_MATCH), or
                                  OF_ROBUST_PICK after a CUDA frame with device
                                  output (the choice stays on the device: nothing waits for it);
                                  otherwise config.robust */
} of_info;

/** Opaque context: one per camera stream. */
typedef struct of_context of_context;

/** Fill *cfg with the defaults of algo, struct_size included (writes sizeof(of_config) bytes).
 *  Unknown algo: OF_ERR_INVALID_ARGUMENT. LK's differ from the others' in warps 1, iterations 10
 *  (Newton steps per level) and median_size 0. */
OF_API of_status of_config_init(of_config* cfg, of_algorithm algo);

/** Host and device bytes of_create would use for cfg (the same plan and selection, the board
 *  table included). Validates cfg; creates nothing. */
OF_API of_status of_query_memory(const of_config* cfg, of_memory* need);

/** Validate cfg, take the arena (the caller's, or one allocation) and set everything up.
 *  On failure *out is set to NULL and of_last_error(NULL) says why. */
OF_API of_status of_create(const of_config* cfg, of_context** out);

/** Flow from prev to next, written to *out. Both frames have the same size (<= the maximum).
 *  Never allocates. On OF_OK the flow is finite at every pixel, and every correspondence lies
 *  within the frame extended by its longer side M = max(width, height): x + u in
 *  [-M, width - 1 + M], y + v in [-M, height - 1 + M] (no motion a camera can observe goes further).
 *  With out->format F16 or S10.5 the elements are the F32 flow rounded as of_flow_format says (the
 *  bound above then holds up to that rounding and the format's clamp: S10.5 clamps at [-1024,
 *  1023.96875] px, so a longer correspondence saturates).
 *  On error the context stays usable (a CUDA error included: OF_ERR_DEVICE with CUDA's text) and
 *  nothing is written to *out, with two exceptions on the CUDA path: flow in CUDA-mapped host
 *  memory may already hold (part of) the flow when a CUDA call after its copy fails, and so may
 *  host-memory flow when one of the frame's last waits fails (its download runs in row bands
 *  whose copies into *out overlap the next band's download; a failure there is a device fault
 *  after the solve). */
OF_API of_status of_process(of_context* ctx, const of_image* prev, const of_image* next,
                            of_flow* out);

/** One frame of a camera stream: the flow from the frame pushed before it (prev) to this one
 *  (next), written to *out as of_process(ctx, prev, frame, out) would write it; bit for bit the
 *  same with config.warm_start 0. The library keeps what it needs of the frame in its arena (a
 *  copy of the frame's pixels: on the CUDA path the uploaded copy in the device arena, the other
 *  paths a copy in the host arena), so the caller may reuse the frame's buffer as soon as the
 *  call returns (a frame in CUDA device or mapped memory is copied on the context's stream, like
 *  of_process's reads: reuse it in that stream's order, or after a wait); each frame is uploaded
 *  and converted once. Never allocates.
 *  - The first frame after of_create, of_reset or of_process, and a frame whose size differs
 *    from the last one pushed, start a stream: OF_PENDING, nothing written to *out (which is
 *    then not checked: it may be NULL), of_last_error says why.
 *  - On an error nothing is written and the stream is unchanged: the next frame pairs with the
 *    last frame that was accepted.
 *  - of_process on the same context ends the stream (the next push returns OF_PENDING).
 *  Errors as of_process's for the frame and the flow. */
OF_API of_status of_push_frame(of_context* ctx, const of_image* frame, of_flow* out);

/** Forget the stream: the next of_push_frame starts a new one (OF_PENDING). Also drops the warm
 *  start's flow. Nothing else changes. OF_ERR_NULL_POINTER for a NULL ctx. */
OF_API of_status of_reset(of_context* ctx);

/** Most host buffers registered with one context (of_register_host). */
#define OF_MAX_REGISTERED 8

/** Registers a host buffer of the caller's with the CUDA path: the driver page-locks it
 *  (cudaHostRegister), and from then on a frame or flow plane of of_process / of_push_frame that
 *  lies wholly inside it moves by DMA straight from / to it, without the copy through the
 *  library's staging region (docs/performance.md has what that saves at 1080p). A setup call:
 *  page-locking costs the driver time (about a millisecond per few tens of MB, measured there) and
 *  pins the pages until of_unregister_host or of_destroy, so register each buffer once, not per
 *  frame. The library allocates nothing (the driver keeps its own page tables). At most
 *  OF_MAX_REGISTERED buffers, not overlapping. Other backends: OF_OK and nothing happens (they
 *  read and write the caller's memory in place). Errors: OF_ERR_NULL_POINTER (ctx or p NULL),
 *  OF_ERR_INVALID_ARGUMENT (bytes 0, overlap with a registered buffer, table full),
 *  OF_ERR_DEVICE (the driver refused: its text in of_last_error). */
OF_API of_status of_register_host(of_context* ctx, void* p, size_t bytes);

/** Undoes of_register_host(ctx, p, ...): p as it was registered. Call it before freeing the
 *  buffer; of_destroy unregisters what is left. OF_ERR_INVALID_ARGUMENT when p is not registered
 *  (other backends: OF_OK). */
OF_API of_status of_unregister_host(of_context* ctx, const void* p);

/** Sets cfg->dis to one of OpenCV's DIS presets (the values at of_dis_preset_id); no other field
 *  changes. OF_ERR_NULL_POINTER for NULL cfg, OF_ERR_STRUCT_SIZE for a wrong struct_size,
 *  OF_ERR_INVALID_ARGUMENT for an unknown preset (of_last_error(NULL) says which). */
OF_API of_status of_dis_preset(of_config* cfg, of_dis_preset_id preset);

/** Release the context and its arena (a caller arena is left to the caller). NULL-safe. */
OF_API void of_destroy(of_context* ctx);

/** What the context chose and what its last frame did. */
OF_API of_status of_get_info(const of_context* ctx, of_info* info);

/** Validates cfg and fills *info (info->struct_size = sizeof(of_info)) exactly as of_create
 *  would for a frame of max_width x max_height (the last_* fields 0), without creating anything:
 *  no arena, no thread, nothing on a GPU. The same table, precision, backend per level,
 *  variant, launch shape, iterations and reason, and the bytes of_query_memory reports. Detection
 *  uses what is present (the device tree, the CUDA device's properties); for a platform named by
 *  config.platform or OFLOW_PLATFORM it assumes that board's GPU is present, so a desktop can
 *  explain a Jetson: a CUDA backend this build lacks is then reported with host_bytes and
 *  device_bytes 0 and a reason that says so. Errors as of_create's, in of_last_error(NULL).
 *  Allocates nothing unless config.tuning_path is set (the XML reader allocates while it reads;
 *  the table itself lives on the stack, about 60 KB). */
OF_API of_status of_explain(const of_config* cfg, of_info* info);

/** A static, human-readable name for s ("OF_ERR_SIZE: ..."); never NULL. */
OF_API const char* of_status_string(of_status s);

/** The message of the last failed call on ctx; with ctx NULL, of the last failed call on this
 *  thread that had no context (of_config_init, of_query_memory, of_create, or a NULL ctx).
 *  "" when there was none. Valid until the next call on the same context / thread. */
OF_API const char* of_last_error(const of_context* ctx);

/** OF_VERSION of the library that was linked. */
OF_API uint32_t of_version(void);

/* ---- on-device self-test ---------------------------------------------------------------- */

/** Outcome of one self-test case. */
typedef enum of_check_result {
    OF_CHECK_PASS = 0,
    OF_CHECK_WARN = 1, /**< passed, but slower than the board table's warn factor */
    OF_CHECK_FAIL = 2,
    OF_CHECK_SKIP = 3, /**< could not apply here (no CUDA device, no table figure, ...) */
    OF_CHECK_RESULT_MAX_ENUM = 0x7fffffff
} of_check_result;

/** What of_selftest runs. Fill with of_selftest_options_init. */
typedef struct of_selftest_options {
    uint32_t struct_size;  /**< sizeof(of_selftest_options) */
    of_backend backend;    /**< AUTO (default): every backend this build and machine have; else that one
                                only, OF_ERR_BACKEND_UNAVAILABLE when it is missing */
    uint32_t full;         /**< 0 (default): quick, small frames (under 5 s on a Nano-class board);
                                1: larger frames and more iterations */
    const char* platform;  /**< board table for the timing checks; default NULL = detect */
    uint32_t threads;      /**< CPU worker threads for the CPU paths; default 0 = 1; <= 64 */
} of_selftest_options;

/** One case: "<backend>/<precision>/<group>/<check>", e.g. "neon/f32/kernel/blur". */
typedef struct of_selftest_case {
    char name[64];
    char group[16];        /**< device, kernel, parity, accuracy, arena, determinism, timing; hs (Horn-Schunck / CLG),
                                    lk (Lucas-Kanade), dis (Dense Inverse Search) */
    of_backend backend;
    of_precision precision;
    of_check_result result;
    double value;          /**< what was measured: an error in px, ns/iteration/pixel, bytes, ... */
    double limit;          /**< the bound it was held to (timing: the fail bound) */
    double seconds;        /**< time the case took */
    char message[192];     /**< what was checked and what came out */
} of_selftest_case;

/** The caller's report: a case array it owns (or NULL with capacity 0: counts only). */
typedef struct of_selftest_report {
    uint32_t struct_size;      /**< sizeof(of_selftest_report) */
    of_selftest_case* cases;   /**< caller array of case_capacity entries */
    uint32_t case_capacity;
    uint32_t case_count;       /**< out: cases run; only the first case_capacity are stored */
    uint32_t passed, warned, failed, skipped; /**< out */
    double seconds;            /**< out: wall time of the whole self-test */
    char board[32];            /**< out: the board table the timing checks used ("" if none) */
    char summary[192];         /**< out: one line, "PASS: ..." or "FAIL: ..." */
} of_selftest_report;

/** Defaults: every backend, quick, detected board, one thread. */
OF_API void of_selftest_options_init(of_selftest_options* opt);

/** Runs the self-test on built-in frames with known flow (no files): for every available
 *  backend and precision, kernel checks (CPU paths), parity with the reference path, accuracy
 *  on seven cases (one with an exposure change), arena checks (query == use, no allocation per frame), determinism, timing
 *  against the board table, and CUDA device health. Allocates while it runs (it is not a frame
 *  path) and uses contexts of its own. Returns OF_OK when it ran, whatever the cases say (see
 *  report->failed); an error status when it could not run (bad arguments, the one backend asked
 *  for is unavailable). */
OF_API of_status of_selftest(const of_selftest_options* opt, of_selftest_report* report);

/** The block a buffer of of_explain_buffers lies in. */
typedef enum of_buffer_block {
    OF_BLOCK_HOST = 0,    /**< the host arena (of_memory.host_bytes) */
    OF_BLOCK_STAGING = 1, /**< the CUDA path's pinned staging: itself the host buffer "staging" */
    OF_BLOCK_DEVICE = 2   /**< the device arena (of_memory.device_bytes) */
} of_buffer_block;

/** One buffer of a context's plan. */
typedef struct of_buffer_info {
    const char* name;     /**< static string: "pyr[0]", "u[0]", "staging", ... */
    const char* holds;    /**< static string: what it holds and for how long; a buffer that reuses
                               another's bytes (the schedule frees them in time) says which */
    of_buffer_block block;
    uint64_t offset;      /**< bytes from the start of its block */
    uint64_t bytes;       /**< padding to the next buffer's alignment included */
} of_buffer_info;

/** Every buffer of the plan of_explain reports for cfg, with a nonzero size: the host arena's,
 *  then (CUDA) the staging's and the device arena's. Fills out[0 .. min(capacity, n) - 1] and
 *  sets *count = n (call with capacity 0 and out NULL to learn n; 64 always suffices). Buffers
 *  that reuse another's bytes are listed too, so the bytes of a block's rows may add up to more
 *  than the block. Validation, errors and allocation as of_explain's; where of_explain reports
 *  host_bytes 0 (a CUDA backend this build lacks: an explained Jetson) *count is 0. */
OF_API of_status of_explain_buffers(const of_config* cfg, of_buffer_info* out, uint32_t capacity, uint32_t* count);

#ifdef __cplusplus
}
#endif

#endif /* OFLOW_H */
