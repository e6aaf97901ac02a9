#include "photo_tables.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace phototest {

namespace {

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> t;
    std::istringstream in(line);
    for (std::string w; in >> w;) t.push_back(w);
    return t;
}

} // namespace

std::string cell_key(const std::string& photo, const std::string& motion, const std::string& photometry) {
    return photo + " " + motion + " " + photometry;
}

bool read_bounds(const std::string& path, const std::string& key, std::map<std::string, double>* out) {
    std::ifstream in(path);
    if (!in) return false;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> t = split(line);
        if (t.size() < 5 || t[0] != key) continue;
        (*out)[cell_key(t[1], t[2], t[3])] = std::atof(t[4].c_str());
    }
    return true;
}

bool read_opencv(const std::string& path, const std::string& column, std::map<std::string, double>* out) {
    std::ifstream in(path);
    if (!in) return false;
    int col = -1;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> t = split(line);
        if (col < 0) { // the header line
            for (size_t i = 0; i < t.size(); ++i)
                if (t[i] == column) col = static_cast<int>(i);
            if (col < 0) return false;
            continue;
        }
        if (t.size() > static_cast<size_t>(col) && t.size() >= 3)
            (*out)[cell_key(t[0], t[1], t[2])] = std::atof(t[static_cast<size_t>(col)].c_str());
    }
    return col >= 0;
}

} // namespace phototest
