// Where in the user's source an API call was made, captured without macros at the call site.
#pragma once

namespace poplar {

/// A function name, file name and line number (all three or none: `isValid()`). The strings
/// are the compiler's literals and live for the whole program.
class SourceLocation {
public:
  constexpr SourceLocation() = default;
  constexpr SourceLocation(const char *functionName, const char *fileName, unsigned lineNumber)
      : functionName_(functionName), fileName_(fileName), lineNumber_(lineNumber), valid_(true) {}

  constexpr const char *getFunctionName() const { return functionName_; }
  constexpr const char *getFileName() const { return fileName_; }
  constexpr unsigned getLineNumber() const { return lineNumber_; }
  constexpr bool isValid() const { return valid_; }

  /// The location of the call that evaluates this default argument: used as
  /// `void f(SourceLocation loc = SourceLocation::Current())`, it is f's caller.
  static constexpr SourceLocation Current(const char *functionName = __builtin_FUNCTION(),
                                          const char *fileName = __builtin_FILE(),
                                          unsigned lineNumber = __builtin_LINE()) {
    return SourceLocation(functionName, fileName, lineNumber);
  }

private:
  const char *functionName_ = "";
  const char *fileName_ = "";
  unsigned lineNumber_ = 0;
  bool valid_ = false;
};

} // namespace poplar

/// The location of the line it is written on, with the function's full signature.
#define POPLAR_SOURCE_LOCATION ::poplar::SourceLocation(__PRETTY_FUNCTION__, __FILE__, __LINE__)
