; The Windows installer: per user (no administrator rights), a Start menu entry, an uninstaller in "Apps".
;
; packaging/build.sh runs it on Windows after the freeze:
;   makensis -DVERSION=0.1.0 -DAPPDIR=dist\page-agent-desktop -DOUTFILE=dist\...-setup.exe -DICON=resources\icons\app.ico
;            packaging\windows\installer.nsi
; -DNOCOMPRESS stores the files uncompressed (the test that compiles this script on Linux does, to be quick).

Unicode true
!include "MUI2.nsh"
!include "FileFunc.nsh"

!ifndef VERSION
  !error "pass -DVERSION=x.y.z"
!endif
!ifndef APPDIR
  !error "pass -DAPPDIR=<the frozen app's folder>"
!endif
!ifndef OUTFILE
  !define OUTFILE "page-agent-desktop-${VERSION}-windows-x86_64-setup.exe"
!endif

!define APPNAME "Page Agent Desktop"
!define EXENAME "page-agent-desktop-gui.exe"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\page-agent-desktop"
!define HOMEPAGE "https://github.com/page-agent-desktop/page-agent-desktop"

Name "${APPNAME}"
OutFile "${OUTFILE}"
; Per user: under the user's own Programs folder, nothing that needs an administrator.
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APPNAME}"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
!ifdef NOCOMPRESS
  SetCompress off
!else
  SetCompressor /SOLID lzma
!endif
ManifestDPIAware true
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${APPNAME}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APPNAME} installer"
VIAddVersionKey "LegalCopyright" "The Page Agent Desktop developers (MIT licence)"

!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXENAME}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APPNAME}"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

Section "Install"
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  ; A new version replaces the old files entirely; the user's settings and runs live elsewhere (AppData).
  RMDir /r "$INSTDIR\_internal"
  File /r "${APPDIR}\*.*"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${APPNAME}.lnk" "$INSTDIR\${EXENAME}" "" "$INSTDIR\${EXENAME}" 0
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${APPNAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "The Page Agent Desktop developers"
  WriteRegStr HKCU "${UNINSTKEY}" "URLInfoAbout" "${HOMEPAGE}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\${EXENAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" "$0"
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Delete "$SMPROGRAMS\${APPNAME}.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\page-agent-desktop.exe"
  Delete "$INSTDIR\${EXENAME}"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTKEY}"
  ; The user's settings, runs and browser profile (in AppData) stay: reinstalling brings them back.
SectionEnd
