// The photograph set (tests/photo_set.cpp): which photographs, the cells (photograph x motion x
// photometric condition), the subsets of cells the tests run, and a cell's frames and exact flow.
//
// The photographs are Debian's: scikit-image's sample data (package python3-skimage, in
// /usr/lib/python3/dist-packages/skimage/data) and OpenCV's sample data (opencv-doc, in
// /usr/share/doc/opencv-doc/examples/data); PNG files only; never copied into the repository.
// tests/CMakeLists.txt finds the two folders (OF_PHOTO_SKIMAGE_DIR, OF_PHOTO_OPENCV_DIR) and
// lists the same files. Three kinds:
//   smooth   low contrast, large smooth or flat areas: camera (a lawn and sky), moon, basketball
//            (an indoor scene, a flat wall over half the frame)
//   texture  fine texture everywhere: grass, gravel, brick (a periodic wall)
//   scene    objects, edges, shading: astronaut, coffee, graf (graffiti), box (objects on a table)
//
// A cell's frames: the photograph (grey, tests/photo_png.hpp) seen through the motion's cameras
// (tests/photo_motion.hpp) at the photograph's scale (photo_scale), rendered (tests/photo_view.hpp:
// the flow between two frames is exact), then the photometric condition (tests/photo_light.hpp)
// and 8-bit rounding: what a camera gives. Deterministic: the same arguments give the same bits.
#ifndef OFLOW_TESTS_PHOTO_CELLS_HPP
#define OFLOW_TESTS_PHOTO_CELLS_HPP

#include "photo_light.hpp"
#include "photo_motion.hpp"
#include "photo_view.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace phototest {

/// The default view: 320x240.
const int kViewWidth = 320, kViewHeight = 240;

struct PhotoEntry {
    const char* name; ///< the cell's first column
    const char* file; ///< the file name in its package's folder
    const char* kind; ///< "smooth", "texture" or "scene" (the header)
};

/// The catalogue, in table order.
int photo_count();
const PhotoEntry& photo_entry(int i);
/// The index of a photograph by name; -1 when unknown.
int photo_index(const std::string& name);

/// One cell.
struct CellId {
    int photo = 0;
    Move move = Move::Small;
    Light light = Light::None;
};

/// Whether the cell belongs to the subset: "all" (every photograph x motion x condition),
/// "quick" (the CTest default: every motion, condition and photograph at least once, within the
/// suite's time budget: photo_set.cpp's header), "sanitize" (two cells, the sanitizer build).
/// False for an unknown subset (known_subset).
bool in_subset(const std::string& subset, const CellId& c);
bool known_subset(const std::string& subset);

/// The scale (photo pixels per view pixel) at which a photograph of pw x ph pixels shows every
/// frame of every motion of a w x h view with the margin its sampler needs: the largest up to 2
/// (more would throw detail away); 0 when that is below 1 (the photograph is too small: the
/// views would be magnified).
double photo_scale(int pw, int ph, int w, int h);

/// The noise seed of a cell (its condition's noise differs between cells).
uint32_t cell_seed(const CellId& c);

/// A cell's frames (8-bit, w x h, rows w apart) and, per consecutive pair (k, k + 1), the exact
/// flow gt_u[k], gt_v[k] (px, frame k -> frame k + 1).
struct CellFrames {
    int w = 0, h = 0;
    double scale = 0.0;
    std::vector<std::vector<uint8_t>> frames;
    std::vector<std::vector<float>> gt_u, gt_v;
};

/// Renders cell c of the photograph (already read as grey) for a w x h view; false with *err
/// set when the photograph is too small for the view.
bool render_cell(const Photo& photo, const CellId& c, int w, int h, CellFrames* out, std::string* err);

/// As render_cell() with a sampler already built for the photograph at scale (render_cell's).
bool render_cell_with(const PhotoSampler& sampler, double scale, const CellId& c, int w, int h, CellFrames* out,
                      std::string* err);

/// The first folder of dirs holding `file` (a readable file): its path in *path; false if none.
bool find_photo(const std::vector<std::string>& dirs, const std::string& file, std::string* path);

} // namespace phototest

#endif
