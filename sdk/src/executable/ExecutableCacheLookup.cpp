// tessera::ExecutableCache: the public face of the executable cache (load by key).
#include <tessera/ExecutableCache.hpp>

#include <poplar/exceptions.hpp>

#include "engine/EngineOptions.hpp"
#include "executable/ExecutableCache.hpp"

namespace tessera {

namespace {

poplar::executable::CacheSettings settingsOf(const poplar::engine::EngineOptions &o) {
  return {o.executableCache, o.executableCacheDirectory, o.executableCacheMaxBytes};
}

} // namespace

ExecutableCache::ExecutableCache(const poplar::OptionFlags &engineOptions) {
  const auto settings = settingsOf(poplar::engine::parseEngineOptions(engineOptions));
  enabled_ = settings.enabled;
  directory_ = poplar::executable::cacheDirectory(settings);
}

std::optional<poplar::Executable> ExecutableCache::load(const std::string &key) const {
  // Keys are the hex digests Engine::executableCacheKey() returns; anything else could name a
  // path outside the cache.
  if (key.empty() || key.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw poplar::runtime_error("tessera::ExecutableCache::load: '" + key +
                                "' is not a key from Engine::executableCacheKey() (hex digits)");
  if (!enabled_)
    return std::nullopt;
  poplar::executable::CacheSettings settings;
  settings.directory = directory_;
  auto impl = poplar::executable::lookUp(settings, key);
  if (!impl)
    return std::nullopt;
  return poplar::Executable(std::move(impl));
}

} // namespace tessera
