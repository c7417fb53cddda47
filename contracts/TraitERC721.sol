// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

/// An ERC721 collection whose traits live in metadata served by the sandbox (tokenURI = baseURI + id).
/// The owner mints; anyone may transfer what they own or are approved for.
contract TraitERC721 {
    string public name;
    string public symbol;
    string private baseURI;
    /// Contract-level metadata (JSON: name, description, image, banner_image, …); empty = none.
    string public contractURI;
    address public owner;
    uint256 public totalSupply;

    mapping(uint256 => address) internal owners;
    mapping(address => uint256) internal balances;
    mapping(uint256 => address) private tokenApprovals;
    mapping(address => mapping(address => bool)) private operatorApprovals;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    /// EIP-4906: metadata of a token changed (the sandbox re-reads it).
    event MetadataUpdate(uint256 tokenId);

    constructor(string memory name_, string memory symbol_, string memory baseURI_) {
        name = name_;
        symbol = symbol_;
        baseURI = baseURI_;
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure virtual returns (bool) {
        return id == 0x01ffc9a7 || id == 0x80ac58cd || id == 0x5b5e139f || id == 0x49064906;
    }

    function balanceOf(address who) external view returns (uint256) {
        require(who != address(0), "ERC721: zero address");
        return balances[who];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        address o = owners[tokenId];
        require(o != address(0), "ERC721: nonexistent token");
        return o;
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return string.concat(baseURI, toString(tokenId));
    }

    function approve(address to, uint256 tokenId) external {
        address o = ownerOf(tokenId);
        require(msg.sender == o || operatorApprovals[o][msg.sender], "ERC721: not owner nor operator");
        tokenApprovals[tokenId] = to;
        emit Approval(o, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return tokenApprovals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address o, address operator) external view returns (bool) {
        return operatorApprovals[o][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address o = ownerOf(tokenId);
        require(o == from, "ERC721: wrong from");
        require(to != address(0), "ERC721: zero address");
        require(
            msg.sender == o || tokenApprovals[tokenId] == msg.sender || operatorApprovals[o][msg.sender],
            "ERC721: not approved"
        );
        delete tokenApprovals[tokenId];
        balances[from] -= 1;
        balances[to] += 1;
        owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        if (to.code.length > 0) {
            require(
                IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data)
                    == IERC721Receiver.onERC721Received.selector,
                "ERC721: receiver refused"
            );
        }
    }

    function mint(address to, uint256 tokenId) external virtual {
        require(msg.sender == owner, "ERC721: not owner");
        _mint(to, tokenId);
    }

    function _mint(address to, uint256 tokenId) internal {
        require(to != address(0), "ERC721: zero address");
        require(owners[tokenId] == address(0), "ERC721: already minted");
        owners[tokenId] = to;
        balances[to] += 1;
        totalSupply += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function setBaseURI(string calldata baseURI_) external {
        require(msg.sender == owner, "ERC721: not owner");
        baseURI = baseURI_;
    }

    /// Announces that a token's metadata changed (EIP-4906).
    function touchMetadata(uint256 tokenId) external {
        require(msg.sender == owner, "ERC721: not owner");
        emit MetadataUpdate(tokenId);
    }

    function toString(uint256 v) internal pure returns (string memory) {
        if (v == 0) return "0";
        uint256 len;
        for (uint256 t = v; t != 0; t /= 10) len++;
        bytes memory out = new bytes(len);
        for (; v != 0; v /= 10) out[--len] = bytes1(uint8(48 + (v % 10)));
        return string(out);
    }

    function setContractURI(string calldata uri_) external {
        require(msg.sender == owner, "ERC721: not owner");
        contractURI = uri_;
    }
}
