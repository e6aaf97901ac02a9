// The photograph set's checked-in tables (tests/photo_set.cpp reads them):
//   tests/data/photo_bounds.tsv   rows "KEY photo motion photometry bound measured" (# comments;
//                                 KEY "tvl1" for the defaults, "tvl1:none" for a --robust run),
//                                 written by scripts/photo_bounds.py
//   tests/data/opencv_photo.tsv   OpenCV's EPE per cell: # comments, a header line naming the
//                                 tab-separated columns (photo motion photometry ... tvl1_epe
//                                 dis_medium_epe ...), then a row per cell; written by
//                                 scripts/compare_opencv.py --photos
// Both keyed by "photo motion photometry" (cell_key).
#ifndef OFLOW_TESTS_PHOTO_TABLES_HPP
#define OFLOW_TESTS_PHOTO_TABLES_HPP

#include <map>
#include <string>

namespace phototest {

/// "photo motion photometry", the tables' key of a cell.
std::string cell_key(const std::string& photo, const std::string& motion, const std::string& photometry);

/// The bounds of rows whose KEY is `key` into *out; false when the file cannot be read.
bool read_bounds(const std::string& path, const std::string& key, std::map<std::string, double>* out);

/// Column `column` (by its header name) of every row into *out; false when the file cannot be
/// read or has no such column.
bool read_opencv(const std::string& path, const std::string& column, std::map<std::string, double>* out);

} // namespace phototest

#endif
