// Whole records read back from the index for a corpus loaded slim: a record's page, its
// JSON or a finding's advice parses the file the index holds, once, and the last few
// thousand parsed are kept. Keys are (id, content hash), so a record unchanged by a
// reload is still found, and a snapshot older than the index's rows finds its own
// version here or, failing that, gets the slim record.

#include <algorithm>
#include <optional>

#include "core/lru_cache.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/store.h"

namespace kb {
namespace {

class StoreBodies final : public RecordBodies {
 public:
  StoreBodies(std::shared_ptr<const Store> store, std::size_t capacity)
      : store_(std::move(store)), cache_(capacity) {}

  std::shared_ptr<const Record> whole(const Record& slim) const override {
    std::string key = slim.id + '\n' + slim.content_hash;
    if (auto hit = cache_.get(key)) return *hit;
    if (!store_) return nullptr;
    std::optional<std::string> bytes;
    try {
      bytes = store_->source(slim.id, slim.content_hash);
    } catch (const Error&) {
      return nullptr;  // the index is busy or gone: the caller reads the file instead
    }
    if (!bytes) return nullptr;
    FileResult f = load_record_text(slim.file, *bytes);
    if (!f.record || f.record->content_hash != slim.content_hash) return nullptr;
    return cache_.put(std::move(key), f.record);
  }

 private:
  std::shared_ptr<const Store> store_;
  LruCache<std::shared_ptr<const Record>> cache_;
};

}  // namespace

std::shared_ptr<const RecordBodies> record_bodies(std::shared_ptr<const Store> store,
                                                  std::size_t cache_records) {
  return std::make_shared<StoreBodies>(std::move(store), std::max<std::size_t>(cache_records, 1));
}

}  // namespace kb
