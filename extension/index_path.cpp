#include "extension/index_path.h"

#include <cctype>

#include <climits>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace datalog::ext {

namespace {

// The folder part of a path, with its trailing '/'; empty for a bare file name.
std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string database_file(sqlite3* db, const std::string& schema) {
  const char* file = sqlite3_db_filename(db, schema.c_str());
  return file ? file : "";
}

bool climbs_out(const std::string& file) {
  std::string_view rest = file;
  while (!rest.empty()) {
    const auto slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part == "..") return true;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return false;
}

// The canonical form of folders ("" is the working directory; empty when it does not exist), for
// one resolve: the graph's folder is mostly the database's, and each is looked up once.
class RealFolders {
 public:
  const std::string& of(const std::string& folder) {
    auto it = known_.find(folder);
    if (it == known_.end()) {
      char buffer[PATH_MAX];
      const bool found = ::realpath(folder.empty() ? "." : folder.c_str(), buffer) != nullptr;
      it = known_.emplace(folder, found ? std::string(buffer) : std::string()).first;
    }
    return it->second;
  }

 private:
  std::map<std::string, std::string> known_;
};

// Whether path, with symbolic links followed, is a file inside folder (or a folder below it).
bool stays_inside(const std::string& path, const std::string& folder, RealFolders& real,
                  std::string* error) {
  const std::string& base = real.of(folder);
  const std::string& parent = real.of(folder_of(path));
  // A missing folder holds no link to follow, and nothing can be made in it: opening the graph
  // reports it.
  if (base.empty() || parent.empty()) return true;
  if (parent != base && parent.rfind(base == "/" ? base : base + "/", 0) != 0) {
    *error = fmt::format("graph '{}' is outside the database's folder '{}' (through a symbolic link)",
                         path, base);
    return false;
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    *error = fmt::format("graph '{}' is a symbolic link", path);
    return false;
  }
  return true;
}

std::string base_name(const std::string& path) { return path.substr(folder_of(path).size()); }

// The files of the connection's databases. sqlite3_db_name (SQLite 3.39) lists them without a
// statement: preparing one over pragma_database_list was a tenth of the time to open a graph.
std::vector<std::string> database_files(sqlite3* db) {
  std::vector<std::string> files;
  if (sqlite3_libversion_number() >= 3039000) {
    for (int i = 0; const char* schema = sqlite3_db_name(db, i); ++i) {
      const char* file = sqlite3_db_filename(db, schema);
      if (file && *file) files.emplace_back(file);
    }
    return files;
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT file FROM pragma_database_list", -1, &stmt, nullptr) == SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* file = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      if (file && *file) files.emplace_back(file);
    }
  }
  sqlite3_finalize(stmt);
  return files;
}

// The file of the connection's databases (and their journals) that path is, if any: by device
// and inode when path exists (a file that does not exist is not it), else by canonical folder
// and name. Each path is looked up once: this runs on every open of a graph.
std::string database_file_named(sqlite3* db, const std::string& path, RealFolders& real) {
  struct stat at_path {};
  const bool path_exists = ::stat(path.c_str(), &at_path) == 0;
  const std::string path_folder = path_exists ? std::string() : real.of(folder_of(path));
  if (!path_exists && path_folder.empty()) return {};  // nothing can be made there
  for (const std::string& file : database_files(db)) {
    const std::string file_folder = path_exists ? std::string() : real.of(folder_of(file));
    for (const char* suffix : {"", "-wal", "-journal", "-shm"}) {
      const std::string candidate = file + suffix;
      if (path_exists) {
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && st.st_dev == at_path.st_dev &&
            st.st_ino == at_path.st_ino) {
          return candidate;
        }
      } else if (file_folder == path_folder && base_name(candidate) == base_name(path)) {
        return candidate;
      }
    }
  }
  return {};
}

}  // namespace

std::string file_identity(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::string();
  return fmt::format("{}:{}", static_cast<unsigned long long>(st.st_dev),
                     static_cast<unsigned long long>(st.st_ino));
}

std::string index_path_beside(const std::string& database_path, const std::string& table) {
  std::string out = database_path + "-";
  for (const char c : table) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out + ".graph";
}

bool resolve_graph_path(sqlite3* db, const std::string& schema, const std::string& table,
                        const std::string& file, bool any_folder, std::string* path,
                        std::string* error) {
  const bool temp = sqlite3_stricmp(schema.c_str(), "temp") == 0;
  RealFolders real;
  if (file.empty()) {
    const std::string database = database_file(db, schema);
    *path = database.empty() ? std::string() : index_path_beside(database, table);
    if (path->empty()) return true;  // a private temporary graph
  } else {
    // Relative names are relative to the database's folder; temp's to main's.
    const std::string folder = folder_of(database_file(db, temp ? "main" : schema));
    if (!any_folder && (file.front() == '/' || climbs_out(file))) {
      *error = fmt::format(
          "graph '{}' must be a file in the database's folder (no absolute path, no '..'), as a "
          "database's schema may come from someone else; to allow any path on this connection, "
          "run SELECT datalog_allow_graph_paths(1) first",
          file);
      return false;
    }
    *path = file.front() == '/' ? file : folder + file;
    if (!any_folder && !stays_inside(*path, folder, real, error)) return false;
  }
  const std::string clash = database_file_named(db, *path, real);
  if (!clash.empty()) {
    *error = fmt::format("the graph file would be the database file itself ('{}'); name another "
                         "file: USING datalog('other.graph')",
                         clash);
    return false;
  }
  return true;
}

std::string make_temp_graph_file(std::string* folder) {
  const char* tmpdir = std::getenv("TMPDIR");
  *folder = tmpdir && *tmpdir ? tmpdir : "/tmp";
  std::string templ = fmt::format("{}/datalog-XXXXXX.graph", *folder);
  const int fd = mkstemps(templ.data(), 6);
  if (fd < 0) return {};
  close(fd);
  return templ;
}

}  // namespace datalog::ext
